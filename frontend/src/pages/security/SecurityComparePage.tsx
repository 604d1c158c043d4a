/**
 * A campaign run compared with another run of the same project (picked here, kept in `?baseline=`): the verdict and
 * why, breach rates per attack and per delivery mode on both sides with their 95 % intervals and the change, the
 * attempts newly breached (with the chatbot's quoted words) or newly resisted, and the attempts that decided
 * nothing — errors and inconclusive ones — listed apart, never counted as resisted. Owner and public visitors alike.
 */
import { Button, List, Paper, Select, Stack, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link, useParams } from "react-router";
import { useRun } from "../../api/runs/runs";
import { useSecurityRuns } from "../../api/security/security";
import {
  type AttemptBrief,
  type AttemptChange,
  type BreachGroup,
  type BreachSide,
  formatBreachInterval,
  formatBreachRate,
  formatUndecided,
  useSecurityComparison,
} from "../../api/security/security-compare";
import { ComparisonVerdict } from "../../components/ComparisonVerdict";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { positiveInt, RatesTable, ThresholdSelect, useComparisonParams } from "../compare/ComparisonShape";
import type { DashboardMode } from "../dashboards/dashboard-paths";
import { formatDate } from "../dashboards/format";
import { securityPaths } from "./security-paths";

function Side({ side }: { side: BreachSide }) {
  const undecided = formatUndecided(side);
  return (
    <>
      <Text size="sm">{side.attempts ? formatBreachRate(side) : "not attempted"}</Text>
      <Text size="xs" c="dimmed">
        {[formatBreachInterval(side), undecided && `+ ${undecided}`].filter(Boolean).join(" ")}
      </Text>
    </>
  );
}

function GroupsTable({ groups, label, first }: { groups: BreachGroup[]; label: string; first: string }) {
  return (
    <RatesTable groups={groups} label={label} first={first} minWidth={680} side={(side) => <Side side={side} />} />
  );
}

const attemptName = (item: { attack_id: string; index: number; delivery: string }) =>
  `${item.attack_id} #${String(item.index + 1)} (${item.delivery})`;

function Changes({ title, changes, empty }: { title: string; changes: AttemptChange[]; empty: string }) {
  return (
    <Paper withBorder p="sm" component="section" aria-label={title}>
      <Title order={2} size="h5" mb="xs">
        {`${title} (${String(changes.length)})`}
      </Title>
      {changes.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <List size="sm" spacing={6}>
          {changes.map((change) => (
            <List.Item key={attemptName(change)}>
              <Text span ff="monospace" size="sm">
                {attemptName(change)}
              </Text>
              <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                {change.run.because}
              </Text>
              {change.run.quotes.map((quote) => (
                <Text
                  key={quote}
                  size="sm"
                  component="q"
                  fs="italic"
                  display="block"
                  style={{ overflowWrap: "anywhere" }}
                >
                  {quote}
                </Text>
              ))}
            </List.Item>
          ))}
        </List>
      )}
    </Paper>
  );
}

function Undecided({ title, baseline, run }: { title: string; baseline: AttemptBrief[]; run: AttemptBrief[] }) {
  if (baseline.length === 0 && run.length === 0) return null;
  return (
    <Paper withBorder p="sm" component="section" aria-label={title}>
      <Title order={2} size="h5" mb={4}>
        {title}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        Not in any rate, and never counted as resisted: they say nothing about how the chatbot holds up.
      </Text>
      {[
        { label: "Baseline", items: baseline },
        { label: "This run", items: run },
      ]
        .filter((side) => side.items.length > 0)
        .map((side) => (
          <Stack key={side.label} gap={2} mb="xs">
            <Text size="sm" fw={500}>{`${side.label} (${String(side.items.length)})`}</Text>
            <List size="sm" spacing={2}>
              {side.items.map((item) => (
                <List.Item key={item.id} style={{ overflowWrap: "anywhere" }}>
                  <Text span ff="monospace" size="sm">
                    {attemptName(item)}
                  </Text>
                  {`: ${item.because}`}
                </List.Item>
              ))}
            </List>
          </Stack>
        ))}
    </Paper>
  );
}

function runLabel(run: { id: number; created_at: string; counters?: unknown }): string {
  const counters = run.counters as Record<string, unknown> | null | undefined;
  const breached = typeof counters?.breached === "number" ? counters.breached : 0;
  return `#${String(run.id)} · ${formatDate(run.created_at)} · ${String(breached)} breached`;
}

function Comparison({
  runId,
  baseline,
  threshold,
  mode,
}: {
  runId: number;
  baseline: number;
  threshold: number;
  mode: DashboardMode;
}) {
  const comparison = useSecurityComparison(runId, baseline, threshold);
  if (comparison.isPending) return <LoadingState label="Comparing" />;
  if (comparison.isError) return <ErrorState error={comparison.error} title="Could not compare the runs" />;
  const data = comparison.data;
  return (
    <Stack gap="md">
      <ComparisonVerdict
        verdict={data.verdict}
        against="against "
        baselineRun={data.baseline_run}
        baselineTo={securityPaths.run(data.baseline_run, mode)}
        reasons={data.reasons}
        notes={data.notes}
        nothingMoved="No breach rate moved by the threshold or more."
      />
      <Paper withBorder p="sm">
        <Title order={2} size="h5" mb="xs">
          Breach rates
        </Title>
        <Text size="xs" c="dimmed" mb="xs">
          Breached / (breached + resisted), with the 95 % Wilson interval; errors and inconclusive attempts beside it.
        </Text>
        <GroupsTable groups={[data.overall, ...data.attacks]} label="Breach rate per attack" first="Attack" />
        <GroupsTable groups={data.deliveries} label="Breach rate per delivery mode" first="Delivery" />
        {data.states.length > 0 && (
          <GroupsTable groups={data.states} label="Breach rate per state of TRACER's graph" first="State" />
        )}
      </Paper>
      <Changes
        title="Newly breached"
        changes={data.newly_breached}
        empty="No attempt resisted in the baseline is breached now."
      />
      {data.newly_resisted.length > 0 && <Changes title="Newly resisted" changes={data.newly_resisted} empty="" />}
      <Undecided title="Errors" baseline={data.errors.baseline} run={data.errors.run} />
      <Undecided title="Inconclusive attempts" baseline={data.inconclusive.baseline} run={data.inconclusive.run} />
    </Stack>
  );
}

export function SecurityCompareView({ runId, mode }: { runId: number; mode: DashboardMode }) {
  const { baseline, threshold, choose } = useComparisonParams();
  const run = useRun(runId);
  const runs = useSecurityRuns(run.data?.project ?? null);
  const others = (runs.data ?? []).filter((other) => other.id !== runId);
  return (
    <Stack gap="md">
      <PageHeader
        title={`Campaign run #${String(runId)} compared`}
        description="Is the chatbot easier to break than in the other run? Attempts are matched by attack, delivery mode and attempt number."
        actions={
          <>
            <Select
              label="Compare with"
              placeholder={runs.isPending ? "Loading the runs…" : "Choose a run"}
              w={280}
              data={others.map((other) => ({ value: String(other.id), label: runLabel(other) }))}
              value={baseline === null ? null : String(baseline)}
              onChange={(value) => {
                choose("baseline", value);
              }}
              nothingFoundMessage="No other campaign run in this project"
            />
            <ThresholdSelect
              labelled
              threshold={threshold}
              onChange={(value) => {
                choose("threshold", value);
              }}
            />
            <Button component={Link} to={securityPaths.run(runId, mode)} variant="default" mt={24}>
              Back to the run
            </Button>
          </>
        }
      />
      {baseline === null ? (
        <EmptyState title="Choose the run to compare with">
          {others.length === 0 && !runs.isPending
            ? "This project has no other campaign run yet: run the campaign again after a change, then compare."
            : "Pick an earlier run of the campaign (before a change) above: this run is judged against it."}
        </EmptyState>
      ) : (
        <Comparison runId={runId} baseline={baseline} threshold={threshold} mode={mode} />
      )}
    </Stack>
  );
}

function SecurityCompareRoute({ mode }: { mode: DashboardMode }) {
  const runId = positiveInt(useParams().runId);
  useDocumentTitle(`Campaign run #${String(runId)} compared · Parley`);
  if (runId === null) return <EmptyState title="No such run" />;
  return <SecurityCompareView runId={runId} mode={mode} />;
}

export function SecurityComparePage() {
  return <SecurityCompareRoute mode="owner" />;
}

export function PublicSecurityComparePage() {
  return <SecurityCompareRoute mode="public" />;
}
