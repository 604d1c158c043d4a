/**
 * The fidelity report as a chart: per behaviour measure, how far the simulated users were from the real ones
 * before and after calibration (0: the same as the real users), beside a table of the measured values.
 */
import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { Paper, Stack, Table, Text, Title } from "@mantine/core";
import type { FidelityReport } from "../../api/workspace/transcripts";

const shown = (value: number | null | undefined) => (value === null || value === undefined ? "—" : String(value));

function verdict(report: FidelityReport): string {
  if (report.closer === null) return "Run a fidelity check: one SENSEI run without and one with the calibrated user.";
  const before = shown(report.overall_gap_uncalibrated);
  const after = shown(report.overall_gap_calibrated);
  return report.closer
    ? `The calibrated user is closer to the real users: mean gap ${before} before, ${after} after.`
    : `The calibrated user is not closer to the real users: mean gap ${before} before, ${after} after.`;
}

export function FidelityChart({ report }: { report: FidelityReport }) {
  const data = report.measures.map((row) => ({
    measure: row.label,
    uncalibrated: row.gap_uncalibrated ?? 0,
    calibrated: row.gap_calibrated ?? 0,
  }));
  const ran = report.uncalibrated_run !== null || report.calibrated_run !== null;
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label="Fidelity report">
      <Stack gap="xs">
        <Title order={3} size="h6">
          Simulated users against real users
        </Title>
        {ran ? (
          <BarChart
            h={260}
            data={data}
            dataKey="measure"
            series={[
              { name: "uncalibrated", label: "Gap before calibration", color: "gray.6" },
              { name: "calibrated", label: "Gap after calibration", color: "teal.6" },
            ]}
            withLegend
            tickLine="y"
          />
        ) : null}
        <Table striped withTableBorder fz="sm" aria-label="Measures of real and simulated users">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Measure</Table.Th>
              <Table.Th>Real users</Table.Th>
              <Table.Th>Uncalibrated</Table.Th>
              <Table.Th>Calibrated</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.measures.map((row) => (
              <Table.Tr key={row.name}>
                <Table.Td>{row.label}</Table.Td>
                <Table.Td>{row.real}</Table.Td>
                <Table.Td>{shown(row.uncalibrated)}</Table.Td>
                <Table.Td>{shown(row.calibrated)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Text component="figcaption" size="xs" c="dimmed">
          Gap = |simulated − real| / real, per measure. {verdict(report)}
        </Text>
      </Stack>
    </Paper>
  );
}
