/**
 * The one shape of a comparison page (a SENSEI run against its baseline, a campaign run against another): the
 * baseline and threshold kept in the address (`?baseline=`, `?threshold=`), the threshold picker, and the tables of
 * rates — one row a group (overall, a profile, a rule, an attack…), the baseline's side, this run's, the change with
 * its 95 % interval and the status the threshold gives it. Each page says how one side of a rate reads.
 */
import { Badge, Select, Table, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { useSearchParams } from "react-router";
import { DEFAULT_THRESHOLD, formatPoints, STATUS_COLORS } from "../../api/runs/compare";

const THRESHOLDS = ["0.05", "0.1", "0.2", "0.3", "0.5"];

export function positiveInt(value: string | null | undefined): number | null {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : null;
}

/** The baseline run and the threshold of the address, and a way to change either (the default drops out). */
export function useComparisonParams() {
  const [params, setParams] = useSearchParams();
  const choose = (name: "baseline" | "threshold", value: string | null) => {
    const next = new URLSearchParams(params);
    const fallback = name === "threshold" ? String(DEFAULT_THRESHOLD) : undefined;
    if (value === null || value === fallback) next.delete(name);
    else next.set(name, value);
    setParams(next, { replace: true });
  };
  const threshold = params.get("threshold");
  return {
    baseline: positiveInt(params.get("baseline")),
    // One the picker offers; anything else in the address is the default.
    threshold: threshold !== null && THRESHOLDS.includes(threshold) ? Number(threshold) : DEFAULT_THRESHOLD,
    choose,
  };
}

interface ThresholdSelectProps {
  threshold: number;
  onChange: (value: string | null) => void;
  /** A visible "Threshold" label above the field; otherwise the options say it ("Threshold 10 points"). */
  labelled?: boolean;
}

export function ThresholdSelect({ threshold, onChange, labelled = false }: ThresholdSelectProps) {
  return (
    <Select
      label={labelled ? "Threshold" : undefined}
      aria-label={labelled ? undefined : "Threshold"}
      w={170}
      value={String(threshold)}
      data={THRESHOLDS.map((value) => {
        const points = `${String(Math.round(Number(value) * 100))} points`;
        return { value, label: labelled ? points : `Threshold ${points}` };
      })}
      allowDeselect={false}
      onChange={onChange}
    />
  );
}

/** One row of a rates table, as both comparisons give it. */
export interface ComparedRate<Side> {
  kind: string;
  name: string;
  baseline: Side;
  run: Side;
  change: { delta: number | null; low: number | null; high: number | null };
  status: keyof typeof STATUS_COLORS;
  why: string;
}

interface RatesTableProps<Side> {
  groups: ComparedRate<Side>[];
  /** The table's name, for assistive technology. */
  label: string;
  /** The first column's header: what a row is. */
  first: string;
  minWidth: number;
  side: (side: Side) => ReactNode;
}

export function RatesTable<Side>({ groups, label, first, minWidth, side }: RatesTableProps<Side>) {
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table aria-label={label} verticalSpacing="xs" fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{first}</Table.Th>
            <Table.Th>Baseline</Table.Th>
            <Table.Th>This run</Table.Th>
            <Table.Th>Change (95 % CI)</Table.Th>
            <Table.Th>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.map((group) => (
            <Table.Tr key={`${group.kind}-${group.name}`}>
              <Table.Th scope="row" fw={500} ff={group.kind === "overall" ? undefined : "monospace"}>
                {group.name}
              </Table.Th>
              <Table.Td>{side(group.baseline)}</Table.Td>
              <Table.Td>{side(group.run)}</Table.Td>
              <Table.Td>
                <Text size="sm">{formatPoints(group.change.delta)}</Text>
                {group.change.low !== null && group.change.high !== null && (
                  <Text size="xs" c="dimmed">
                    {`${formatPoints(group.change.low)} … ${formatPoints(group.change.high)}`}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLORS[group.status]} variant="light" title={group.why}>
                  {group.status}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
