/**
 * A SENSEI run compared with a baseline (its project's, or the run named by `?baseline=`): the verdict and why,
 * pass rates per profile and per rule with their 95 % intervals, the conversations that now fail (each opens
 * side by side with the baseline's), newly passing and flaky ones, new error codes, inconclusive conversations
 * apart with their reasons, and the cost and response-time changes.
 */
import { Badge, Button, Group, List, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { ApiError } from "../../api/errors";
import {
  type ComparedGroup,
  type ComparedMatch,
  type ComparedSide,
  type Comparison,
  formatInterval,
  formatRate,
  useComparison,
} from "../../api/runs/compare";
import { formatValue } from "../../api/runs/conversations";
import { ComparisonVerdict } from "../../components/ComparisonVerdict";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { dashboardPaths, type DashboardMode } from "../dashboards/dashboard-paths";
import { positiveInt, RatesTable, ThresholdSelect, useComparisonParams } from "./ComparisonShape";
import { SideBySide } from "./SideBySide";

function Rate({ side }: { side: ComparedSide }) {
  return (
    <>
      <Text size="sm">{formatRate(side)}</Text>
      <Text size="xs" c="dimmed">
        {formatInterval(side)}
      </Text>
    </>
  );
}

function GroupsTable({ groups, label }: { groups: ComparedGroup[]; label: string }) {
  const first = label === "Rules" ? "Rule" : "Profile";
  return (
    <RatesTable groups={groups} label={label} first={first} minWidth={640} side={(side) => <Rate side={side} />} />
  );
}

function inputsText(match: ComparedMatch): string {
  const pairs = Object.entries(match.inputs).map(([name, value]) => `${name}=${formatValue(value)}`);
  return pairs.join(", ") || "no inputs";
}

function failureReason(match: ComparedMatch): string {
  return match.run.find((b) => b.verdict === "failed")?.reason ?? "";
}

function NewlyFailing({
  matches,
  selected,
  onSelect,
}: {
  matches: ComparedMatch[];
  selected: ComparedMatch | null;
  onSelect: (match: ComparedMatch) => void;
}) {
  return (
    <Table aria-label="Newly failing conversations" fz="sm" verticalSpacing="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Conversation</Table.Th>
          <Table.Th>Inputs</Table.Th>
          <Table.Th>Why it fails now</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {matches.map((match) => {
          const name = `${match.profile} #${String(match.planned_index)}`;
          return (
            <Table.Tr key={`${match.profile}-${String(match.planned_index)}-${inputsText(match)}`}>
              <Table.Td ff="monospace">{name}</Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{inputsText(match)}</Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{failureReason(match)}</Table.Td>
              <Table.Td>
                <Button
                  size="compact-sm"
                  variant={selected === match ? "filled" : "light"}
                  aria-label={`Compare transcripts of ${name}`}
                  onClick={() => {
                    onSelect(match);
                  }}
                >
                  Side by side
                </Button>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function MatchList({
  title,
  matches,
  describe,
}: {
  title: string;
  matches: ComparedMatch[];
  describe: (m: ComparedMatch) => string;
}) {
  if (matches.length === 0) return null;
  return (
    <Paper withBorder p="sm">
      <Title order={2} size="h5" mb="xs">
        {`${title} (${String(matches.length)})`}
      </Title>
      <List size="sm" spacing={2} aria-label={title}>
        {matches.map((match) => (
          <List.Item key={`${match.profile}-${String(match.planned_index)}-${inputsText(match)}`}>
            <Text span ff="monospace" size="sm">{`${match.profile} #${String(match.planned_index)}`}</Text>
            {` (${inputsText(match)}): ${describe(match)}`}
          </List.Item>
        ))}
      </List>
    </Paper>
  );
}

function Inconclusive({ comparison }: { comparison: Comparison }) {
  const sides = [
    { label: "Baseline", counts: comparison.inconclusive_reasons.baseline },
    { label: "This run", counts: comparison.inconclusive_reasons.run },
  ].filter((side) => Object.keys(side.counts).length > 0);
  if (sides.length === 0) return null;
  return (
    <Paper withBorder p="sm" aria-label="Inconclusive conversations" component="section">
      <Title order={2} size="h5" mb={4}>
        Inconclusive conversations
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        Left out of the pass rates: they say nothing about the chatbot (the simulated user, an LLM, a rate limit…).
      </Text>
      {sides.map((side) => (
        <Group key={side.label} gap={6} mb={4}>
          <Text size="sm" fw={500}>
            {side.label}:
          </Text>
          {Object.entries(side.counts).map(([reason, count]) => (
            <Badge key={reason} color="yellow" variant="light">{`${reason} × ${String(count)}`}</Badge>
          ))}
        </Group>
      ))}
    </Paper>
  );
}

function Costs({ comparison }: { comparison: Comparison }) {
  const { cost, response_time: time } = comparison;
  const usd = (value: number | null) => (value === null ? "—" : `$${value.toFixed(4)}`);
  const seconds = (value: number | null) => (value === null ? "—" : `${value.toFixed(2)} s`);
  return (
    <Table aria-label="Cost and response time" fz="sm" withTableBorder>
      <Table.Thead>
        <Table.Tr>
          <Table.Th />
          <Table.Th>Baseline</Table.Th>
          <Table.Th>This run</Table.Th>
          <Table.Th>Change</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        <Table.Tr>
          <Table.Th>Cost</Table.Th>
          <Table.Td>{usd(cost.baseline_usd)}</Table.Td>
          <Table.Td>{usd(cost.run_usd)}</Table.Td>
          <Table.Td>
            {cost.delta_usd === null ? "—" : `${cost.delta_usd >= 0 ? "+" : "−"}${usd(Math.abs(cost.delta_usd))}`}
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th>Mean response time</Table.Th>
          <Table.Td>{seconds(time.baseline.mean_s)}</Table.Td>
          <Table.Td>{seconds(time.run.mean_s)}</Table.Td>
          <Table.Td>{seconds(time.delta_mean_s)}</Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th>95th percentile</Table.Th>
          <Table.Td>{seconds(time.baseline.p95_s)}</Table.Td>
          <Table.Td>{seconds(time.run.p95_s)}</Table.Td>
          <Table.Td>{seconds(time.delta_p95_s)}</Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}

export function CompareView({ runId, mode }: { runId: number; mode: DashboardMode }) {
  const { baseline, threshold, choose } = useComparisonParams();
  const comparison = useComparison(runId, baseline, threshold);
  const [selected, setSelected] = useState<ComparedMatch | null>(null);
  const runLink = dashboardPaths.run("sensei", runId, mode);

  const header = (
    <PageHeader
      title={`SENSEI run #${String(runId)} against its baseline`}
      description="Did the change break something, for sure, and where? Pass rates count passed and failed conversations; inconclusive ones are shown apart."
      actions={
        <>
          <ThresholdSelect
            threshold={threshold}
            onChange={(value) => {
              choose("threshold", value);
            }}
          />
          <Button component={Link} to={runLink} variant="default">
            Back to the run
          </Button>
        </>
      }
    />
  );

  if (comparison.isPending)
    return (
      <Stack>
        {header}
        <LoadingState label="Comparing" />
      </Stack>
    );
  if (comparison.isError) {
    const error = comparison.error;
    const noBaseline = error instanceof ApiError && error.status === 400 && "baseline" in error.fields;
    return (
      <Stack>
        {header}
        {noBaseline ? (
          <EmptyState title="Nothing to compare with yet">
            {error.fields.baseline?.[0] ?? error.detail} A run becomes the baseline with “Use as baseline” on its page.
          </EmptyState>
        ) : (
          <ErrorState error={error} title="Could not compare the runs" />
        )}
      </Stack>
    );
  }
  const data = comparison.data;
  return (
    <Stack gap="md">
      {header}
      <ComparisonVerdict
        verdict={data.verdict}
        against="against the baseline "
        baselineRun={data.baseline_run}
        baselineTo={dashboardPaths.run("sensei", data.baseline_run, mode)}
        reasons={data.reasons}
        notes={data.notes}
        nothingMoved="No pass rate moved by the threshold or more."
      />

      <Paper withBorder p="sm">
        <Title order={2} size="h5" mb="xs">
          Pass rates
        </Title>
        <GroupsTable groups={[data.overall, ...data.profiles]} label="Profiles" />
        {data.rules.length > 0 && <GroupsTable groups={data.rules} label="Rules" />}
      </Paper>

      <Paper withBorder p="sm">
        <Title order={2} size="h5" mb="xs">
          {`Newly failing conversations (${String(data.newly_failing.length)})`}
        </Title>
        {data.newly_failing.length === 0 ? (
          <Text size="sm" c="dimmed">
            No conversation that passed in the baseline fails now.
          </Text>
        ) : (
          <NewlyFailing matches={data.newly_failing} selected={selected} onSelect={setSelected} />
        )}
      </Paper>
      {selected && <SideBySide match={selected} runId={runId} baselineId={data.baseline_run} />}

      {data.new_error_codes.length > 0 && (
        <Group gap={6} aria-label="New error codes">
          <Text size="sm" fw={500}>
            New error codes:
          </Text>
          {data.new_error_codes.map((error) => (
            <Badge
              key={error.code}
              color="red"
              variant="light"
            >{`${String(error.code)} ${error.name} × ${String(error.count)}`}</Badge>
          ))}
        </Group>
      )}
      <MatchList
        title="Newly passing"
        matches={data.newly_passing}
        describe={() => "failed in the baseline, passes now"}
      />
      <MatchList
        title="Flaky: the verdict differs across repeats (no regression by itself)"
        matches={data.flaky}
        describe={(m) => `baseline ${m.baseline_verdict}, this run ${m.run_verdict}`}
      />
      <Inconclusive comparison={data} />
      <Costs comparison={data} />
    </Stack>
  );
}

export function ComparePage({ mode = "owner" }: { mode?: DashboardMode }) {
  const runId = positiveInt(useParams().runId);
  if (runId === null) return <EmptyState title="No such run" />;
  return <CompareView runId={runId} mode={mode} />;
}

export function PublicComparePage() {
  return <ComparePage mode="public" />;
}
