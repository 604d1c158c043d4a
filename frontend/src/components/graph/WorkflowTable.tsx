/**
 * The TRACER workflow graph as a table: the same model as the drawing (`WorkflowGraph`), one row per
 * functionality in reading order — its category, description, parameters with their options, outputs, and the
 * functionalities it comes from and leads to. For screen readers, search (Ctrl+F) and copying.
 *
 * Every label comes from the model an LLM inferred from the chatbot's answers: all of it is rendered as text.
 */
import { Badge, Group, ScrollArea, Stack, Table, Text } from "@mantine/core";
import type { GraphNode, WorkflowGraphData } from "../../api/runs/artefacts";

export interface WorkflowRow {
  node: GraphNode;
  /** Where the user comes from: "Start" for an entry point, else the labels of the functionalities before it. */
  from: string[];
  /** The labels of the functionalities it leads to. */
  to: string[];
}

/** The table's rows: functionalities by depth, then category, then label; links read from the graph's edges. */
export function workflowRows(data: WorkflowGraphData): WorkflowRow[] {
  const byId = new Map(data.nodes.map((node) => [node.id, node]));
  const label = (id: string) => {
    const node = byId.get(id);
    return node === undefined ? id : node.kind === "start" ? "Start" : node.label;
  };
  const unique = (labels: string[]) => [...new Set(labels)];
  return data.nodes
    .filter((node) => node.kind === "functionality")
    .sort((a, b) => a.depth - b.depth || a.category.localeCompare(b.category) || a.label.localeCompare(b.label))
    .map((node) => ({
      node,
      from: unique(data.edges.filter((edge) => edge.target === node.id).map((edge) => label(edge.source))),
      to: unique(
        data.edges
          .filter((edge) => edge.source === node.id && byId.get(edge.target)?.kind === "functionality")
          .map((edge) => label(edge.target)),
      ),
    }));
}

function List({ items, empty = "—" }: { items: string[]; empty?: string }) {
  if (items.length === 0)
    return (
      <Text size="sm" c="dimmed">
        {empty}
      </Text>
    );
  return (
    <Stack gap={2}>
      {items.map((item) => (
        <Text key={item} size="sm">
          {item}
        </Text>
      ))}
    </Stack>
  );
}

export function WorkflowTable({ data }: { data: WorkflowGraphData }) {
  const rows = workflowRows(data);
  if (rows.length === 0) return <Text c="dimmed">The model has no functionality.</Text>;
  return (
    <ScrollArea type="auto">
      <Table withTableBorder striped verticalSpacing="xs" miw={960} aria-label="Workflow table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Functionality</Table.Th>
            <Table.Th scope="col">Category</Table.Th>
            <Table.Th scope="col">Description</Table.Th>
            <Table.Th scope="col">Parameters</Table.Th>
            <Table.Th scope="col">Outputs</Table.Th>
            <Table.Th scope="col">Comes after</Table.Th>
            <Table.Th scope="col">Leads to</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ node, from, to }) => (
            <Table.Tr key={node.id}>
              <Table.Th scope="row" fw={600}>
                <Group gap={6} wrap="nowrap">
                  <Text size="sm" fw={600}>
                    {node.label}
                  </Text>
                  {node.is_join && (
                    <Badge size="xs" variant="outline" color="gray">
                      join
                    </Badge>
                  )}
                </Group>
              </Table.Th>
              <Table.Td>{node.category || "—"}</Table.Td>
              <Table.Td>
                <Text size="sm">{node.description || "—"}</Text>
              </Table.Td>
              <Table.Td>
                <List
                  items={node.parameters.map((p) =>
                    p.options.length > 0 ? `${p.name}: ${p.options.join(", ")}` : p.name,
                  )}
                />
              </Table.Td>
              <Table.Td>
                <List items={node.outputs.map((o) => (o.description ? `${o.name} (${o.description})` : o.name))} />
              </Table.Td>
              <Table.Td>
                <List items={from} />
              </Table.Td>
              <Table.Td>
                <List items={to} empty="— (an end)" />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
