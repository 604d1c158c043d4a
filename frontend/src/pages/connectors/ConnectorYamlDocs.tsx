/** The documentation beside the connector file editor: what each key means, placeholders, and an example. */
import { Badge, Button, Code, Group, List, Stack, Table, Text, Title } from "@mantine/core";
import type { Technology } from "../../api/workspace/connectors";
import { toYaml } from "../../lib/yaml-emit";

export function ConnectorYamlDocs({ technology, onUseExample }: { technology: Technology; onUseExample: () => void }) {
  const example = `technology: ${technology.name}\n${toYaml(technology.example)}`;
  return (
    <Stack gap="sm" aria-label="Connector file documentation" component="section">
      <Title order={2} size="h5">
        Connector file
      </Title>
      <Text size="sm">
        <Code>technology</Code> picks the protocol; every other top-level key is one of its parameters. Press{" "}
        <Code>Ctrl</Code>+<Code>Space</Code> for suggestions and hover a key for its description.
      </Text>
      {technology.name === "http" && (
        <>
          <Title order={3} size="h6">
            Placeholders
          </Title>
          <List size="sm" spacing={2}>
            <List.Item>
              <Code>{"{user_msg}"}</Code> — the simulated user&apos;s turn; <Code>send_message</Code> must contain it.
            </List.Item>
            <List.Item>
              <Code>{"{session_id}"}</Code> — the conversation&apos;s id (from <Code>new_conversation</Code>, or a fresh
              UUID).
            </List.Item>
            <List.Item>
              <Code>{"{uuid}"}</Code> — a fresh UUID; <Code>{"{turn}"}</Code> — the turn number.
            </List.Item>
          </List>
          <Text size="sm">
            Reply paths are dotted: <Code>data.messages.-1.text</Code> takes the last message&apos;s text. Put
            credentials in <Code>headers</Code>: they are stored encrypted, never shown again, and kept when you leave
            them out of the file.
          </Text>
        </>
      )}
      <Title order={3} size="h6">
        Parameters
      </Title>
      <Table.ScrollContainer minWidth={360}>
        <Table verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Key</Table.Th>
              <Table.Th>Meaning</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {technology.parameters.map((parameter) => (
              <Table.Tr key={parameter.name}>
                <Table.Td>
                  <Stack gap={2}>
                    <Code>{parameter.name}</Code>
                    <Group gap={4}>
                      <Badge size="xs" variant="outline">
                        {parameter.type}
                      </Badge>
                      {parameter.required && (
                        <Badge size="xs" color="red" variant="light">
                          required
                        </Badge>
                      )}
                      {parameter.secret && (
                        <Badge size="xs" color="grape" variant="light">
                          secret
                        </Badge>
                      )}
                    </Group>
                  </Stack>
                </Table.Td>
                <Table.Td>{parameter.description}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between">
        <Title order={3} size="h6">
          Example
        </Title>
        <Button size="compact-xs" variant="light" onClick={onUseExample}>
          Use this example
        </Button>
      </Group>
      <Code block>{example}</Code>
    </Stack>
  );
}
