/**
 * A campaign run from TRACER's states: the breach rate per state as a heat map over TRACER's graph (each state's
 * node coloured and labelled by its breach rate) beside the per-state table. The graph is the TRACER run's
 * `graph` artefact; when it cannot be read (a visitor without access to that run), the table stands alone.
 */
import { Grid, Stack, Text } from "@mantine/core";
import { useMemo } from "react";
import { useArtefact } from "../../api/runs/artefacts";
import type { BreachRow } from "../../api/security/security";
import type { components } from "../../api/schema";
import { type NodeMark, WorkflowGraph } from "../../components/graph/WorkflowGraph";

const percent = (share: number) => `${String(Math.round(share * 1000) / 10)}%`;

/** Red when any attempt from the state breached, green when every decided attempt resisted, grey undecided. */
export function stateMark(row: BreachRow): NodeMark {
  if (row.breach_rate === null) return { text: `undecided (${String(row.inconclusive)} inconclusive)`, color: "gray" };
  const decided = row.breached + row.resisted;
  const text = `${percent(row.breach_rate)} breached (${String(row.breached)}/${String(decided)})`;
  return { text, color: row.breached > 0 ? "red" : "green" };
}

export function StateHeatMap({
  rows,
  tracerRun,
  table,
}: {
  rows: components["schemas"]["StateRow"][];
  tracerRun: number | null;
  table: React.ReactNode;
}) {
  const graph = useArtefact(tracerRun ?? 0, "graph", tracerRun !== null);
  const marks = useMemo(() => Object.fromEntries(rows.map((row) => [row.state, stateMark(row)])), [rows]);
  return (
    <Grid>
      <Grid.Col span={{ base: 12, lg: 7 }}>
        {graph.data ? (
          <WorkflowGraph data={graph.data} marks={marks} filename={`states-${String(tracerRun ?? 0)}`} height={420} />
        ) : (
          <Text c="dimmed" size="sm">
            {graph.isPending && tracerRun !== null
              ? "Loading TRACER's graph…"
              : "TRACER's graph cannot be shown here; the table lists every state."}
          </Text>
        )}
      </Grid.Col>
      <Grid.Col span={{ base: 12, lg: 5 }}>
        <Stack gap="xs">{table}</Stack>
      </Grid.Col>
    </Grid>
  );
}
