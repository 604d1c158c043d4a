/** Killed, live and inconclusive mutants per operator, stacked; the table beside it has the same numbers. */
import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { Paper, Stack, Text, Title } from "@mantine/core";
import type { OperatorRow } from "../../api/bench/runs-bench";
import { counted } from "../../lib/text";

export function KillsPerOperatorChart({ rows }: { rows: OperatorRow[] }) {
  const scored = rows.filter((row) => row.killed + row.live + row.inconclusive > 0);
  const killed = rows.reduce((sum, row) => sum + row.killed, 0);
  const live = rows.reduce((sum, row) => sum + row.live, 0);
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label="Kills per operator chart">
      <Stack gap="xs">
        <Title order={3} size="h6">
          Mutants per operator
        </Title>
        {scored.length === 0 ? (
          <Text size="sm" c="dimmed" py="md" ta="center">
            No mutant ran.
          </Text>
        ) : (
          <BarChart
            h={Math.max(160, 28 * scored.length + 40)}
            data={scored.map((row) => ({ ...row }))}
            dataKey="operator"
            type="stacked"
            orientation="vertical"
            series={[
              { name: "killed", label: "Killed", color: "teal.6" },
              { name: "live", label: "Live", color: "red.6" },
              { name: "inconclusive", label: "Inconclusive", color: "orange.5" },
            ]}
            yAxisProps={{ width: 170 }}
            xAxisProps={{ allowDecimals: false }}
            withLegend
          />
        )}
        <Text component="figcaption" size="xs" c="dimmed">
          {`${String(killed)} killed and ${String(live)} live over ${counted(scored.length, "operator")}; stillborn mutants are left out.`}
        </Text>
      </Stack>
    </Paper>
  );
}
