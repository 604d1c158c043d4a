/** What a connection test found: the chatbot's parsed reply, its raw answer (as escaped text) and the latency. */
import { Alert, Badge, Button, Code, Group, Paper, Stack, Text, Title } from "@mantine/core";
import type { BotReply, ConnectionTest } from "../../api/runs/run-results";

function Reply({
  reply,
  label,
  onPickButton,
}: {
  reply: BotReply;
  label: string;
  onPickButton?: (text: string) => void;
}) {
  return (
    <Stack gap={6}>
      <Text size="xs" c="dimmed" fw={500}>
        {label}
      </Text>
      {reply.messages.length === 0 ? (
        <Text size="sm" c="dimmed" fs="italic">
          (no message)
        </Text>
      ) : (
        reply.messages.map((message, index) => (
          <Paper key={index} withBorder p="xs" radius="md" bg="var(--mantine-color-default-hover)" maw={560}>
            <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
              {message}
            </Text>
          </Paper>
        ))
      )}
      {reply.buttons.length > 0 && (
        <Group gap={6} aria-label={`${label}: buttons`} role="group">
          {reply.buttons.map((button, index) => (
            <Button
              key={`${String(index)}-${button.label}`}
              size="xs"
              variant="outline"
              radius="xl"
              title="Use this choice as the next test message"
              onClick={() => onPickButton?.(button.label)}
            >
              {button.label}
            </Button>
          ))}
        </Group>
      )}
    </Stack>
  );
}

export function ConnectionTestResult({
  result,
  onPickButton,
}: {
  result: ConnectionTest;
  onPickButton?: (text: string) => void;
}) {
  return (
    <Stack gap="sm" aria-label="Connection test result" role="region">
      <Group gap="xs">
        <Badge color={result.ok ? "teal" : "red"} size="lg">
          {result.ok ? "Connected" : "Failed"}
        </Badge>
        <Text size="sm">Latency: {result.latency_s.toFixed(2)} s</Text>
        {result.http_status !== null && <Text size="sm">HTTP {result.http_status}</Text>}
      </Group>
      {!result.ok && (
        <Alert color="red" title={result.error_code ?? "The chatbot did not answer"}>
          {result.error_message ?? "No details were recorded."}
        </Alert>
      )}
      {result.greeting && (result.greeting.messages.length > 0 || result.greeting.buttons.length > 0) && (
        <Reply reply={result.greeting} label="Greeting" onPickButton={onPickButton} />
      )}
      <Text size="sm">
        <Text span c="dimmed">
          Sent:{" "}
        </Text>
        {result.message_sent}
      </Text>
      {result.reply && <Reply reply={result.reply} label="Reply" onPickButton={onPickButton} />}
      <Stack gap={4}>
        <Title order={3} size="h6">
          Raw response
        </Title>
        {result.raw_excerpt ? (
          <Code
            block
            tabIndex={0}
            style={{ maxHeight: 280, overflow: "auto", whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}
          >
            {result.raw_excerpt}
          </Code>
        ) : (
          <Text size="sm" c="dimmed">
            (empty)
          </Text>
        )}
      </Stack>
    </Stack>
  );
}
