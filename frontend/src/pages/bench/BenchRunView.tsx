/**
 * One bench run: progress, the log and the mutant outcomes as they come while it runs; then its figures, the
 * mutants (live ones highlighted), the oracle rules it generated, the Markdown report and the exports.
 */
import { Badge, Card, Group, Stack, Table, Tabs, Text, Title } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { useArtefact } from "../../api/runs/artefacts";
import { useRunEvents } from "../../api/runs/project-runs";
import { isRunActive, resultOf, type Run } from "../../api/runs/runs";
import { type BenchReport, benchBots, readBenchSettings, readMutantEvents } from "../../api/bench/runs-bench";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "../dashboards/dashboard-paths";
import { formatCount, formatPoints, sessionsTimesTurns } from "../dashboards/format";
import { isMissingArtefact, ReportTab } from "../dashboards/ReportTab";
import { RunHeader } from "../dashboards/RunHeader";
import { RunLivePanel } from "../dashboards/RunLivePanel";
import { ExportMenu } from "../dashboards/SenseiRunView";
import {
  CoverageTable,
  Headline,
  KillsPerOperator,
  KillsPerReason,
  LiveMutantsAlert,
  MeasuredWith,
  TracerFindings,
  UsagePerPhase,
} from "./BenchFigures";
import { MutantStatusBadge, MutantsSection } from "./MutantsSection";

/** The mutant outcomes reported so far (one `progress` event each). */
function LiveMutants({ run }: { run: Run }) {
  const events = useRunEvents(run.id, isRunActive(run.status));
  const mutants = readMutantEvents(events.data ?? []);
  if (mutants.length === 0) return null;
  const last = mutants.at(-1);
  return (
    <Card withBorder padding="md">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={2} size="h5">
            Mutants so far
          </Title>
          {last?.total !== null && last?.total !== undefined && (
            <Text size="sm" c="dimmed">{`${formatCount(last.done)} of ${String(last.total)}`}</Text>
          )}
        </Group>
        <Table withTableBorder fz="sm" aria-label="Mutants so far">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Mutant</Table.Th>
              <Table.Th>Operator</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Reasons</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {mutants.map((m) => (
              <Table.Tr
                key={m.mutant}
                data-status={m.status ?? "unknown"}
                bg={m.status === "live" ? "var(--mantine-color-red-light)" : undefined}
              >
                <Table.Td ff="monospace">{m.mutant}</Table.Td>
                <Table.Td ff="monospace" fz="xs">
                  {m.operator}
                </Table.Td>
                <Table.Td>
                  <MutantStatusBadge status={m.status} />
                </Table.Td>
                <Table.Td>{m.reasons.join(", ") || "—"}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Stack>
    </Card>
  );
}

function Figures({ data }: { data: BenchReport }) {
  const bots = benchBots(data);
  const many = bots.length > 1;
  return (
    <Stack gap="md">
      <MeasuredWith data={data} />
      <Headline data={data} />
      <LiveMutantsAlert data={data} />
      {bots.map((bot) => (
        <Stack key={bot.bot} gap="md">
          <Title order={2} size="h4">
            {many ? `Coverage — ${bot.name}` : "Coverage of the ground truth"}
          </Title>
          <CoverageTable bot={bot} />
        </Stack>
      ))}
      <Title order={2} size="h4">
        Kills per operator
      </Title>
      <KillsPerOperator data={data} />
      <KillsPerReason data={data} />
      {bots.map((bot) => (
        <Stack key={`tracer-${bot.bot}`} gap="sm">
          <Title order={2} size="h4">
            {`TRACER on ${bot.name}`}
          </Title>
          <TracerFindings bot={bot} />
          <Title order={3} size="h5">
            LLM usage per phase
          </Title>
          <UsagePerPhase bot={bot} />
        </Stack>
      ))}
    </Stack>
  );
}

function OracleRules({ data }: { data: BenchReport }) {
  const bots = benchBots(data);
  const many = bots.length > 1;
  return (
    <Stack gap="md">
      <Text size="sm" c="dimmed">
        Written by the bench, not by hand: rules Parley wrote from TRACER&apos;s model (automatic: what a user without
        ground truth gets) and rules generated from each bot&apos;s ground truth (oracles). Every conversation, on the
        original and on each mutant, is checked against them.
      </Text>
      {bots.map((bot) => (
        <Stack key={bot.bot} gap="xs">
          {many && (
            <Title order={2} size="h5">
              {bot.name}
            </Title>
          )}
          {bot.rules.length === 0 ? (
            <Text size="sm" c="dimmed">
              No rule was generated.
            </Text>
          ) : (
            <Table withTableBorder fz="sm" aria-label={`Rules of ${bot.name}`}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Rule</Table.Th>
                  <Table.Th>Source</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>What it checks</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {bot.rules.map((rule) => (
                  <Table.Tr key={rule.name}>
                    <Table.Td ff="monospace">{rule.name}</Table.Td>
                    <Table.Td>{rule.source === "automatic" ? "TRACER's model" : "ground truth"}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" tt="none">
                        {rule.kind || "rule"}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{rule.description}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      ))}
    </Stack>
  );
}

/** What a tab shows while bench.json is loading, absent or unreadable. */
function BenchLoad({
  bench,
  children,
}: {
  bench: ReturnType<typeof useBenchData>;
  children: (data: BenchReport) => ReactNode;
}) {
  if (bench.isPending) return <LoadingState label="Loading the figures" />;
  if (isMissingArtefact(bench.error)) return <Text c="dimmed">This run left no figures.</Text>;
  if (bench.isError) return <ErrorState error={bench.error} title="Could not load the figures" />;
  return <>{children(bench.data)}</>;
}

function useBenchData(run: Run) {
  return useArtefact(run.id, "bench", !isRunActive(run.status));
}

export function BenchRunView({ run, mode }: { run: Run; mode: DashboardMode }) {
  const summary = readBenchSettings(run);
  const result = resultOf(run, "bench");
  const active = isRunActive(run.status);
  const bench = useBenchData(run);
  // Until the user picks a tab: the figures once the run has succeeded, its progress before.
  const [picked, setPicked] = useState<string | null>(null);
  const tab = picked ?? (run.status === "succeeded" ? "figures" : "progress");
  const operators =
    summary.operators === null || summary.operators.length === 0
      ? "all operators"
      : counted(summary.operators.length, "operator");

  return (
    <Stack gap="md">
      <RunHeader
        run={run}
        mode={mode}
        title={`Bench run #${String(run.id)}`}
        backTo={mode === "public" && run.project ? dashboardPaths.publicProject(run.project) : dashboardPaths.bench}
        facts={[
          { label: "Bot", value: summary.bot || "—" },
          {
            label: "Sessions × turns",
            value: sessionsTimesTurns(run.params),
          },
          { label: "Repeats", value: formatCount(summary.repeats) },
          {
            label: "Mutants per operator",
            value: `${formatCount(summary.mutantsPerOperator)} (${operators})`,
          },
          { label: "Mutation score", value: formatPoints(result?.mutation_score ?? null) },
          { label: "Automatic", value: formatPoints(result?.mutation_score_automatic ?? null) },
        ]}
        actions={<ExportMenu runId={run.id} />}
      />
      <Tabs value={tab} onChange={setPicked} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="progress">{active ? "Progress" : "Log"}</Tabs.Tab>
          <Tabs.Tab value="figures" disabled={active}>
            Figures
          </Tabs.Tab>
          <Tabs.Tab value="mutants" disabled={active}>
            Mutants
          </Tabs.Tab>
          <Tabs.Tab value="rules" disabled={active}>
            Rules
          </Tabs.Tab>
          <Tabs.Tab value="report" disabled={active}>
            Report
          </Tabs.Tab>
        </Tabs.List>
        <Stack pt="md">
          <Tabs.Panel value="progress">
            <Stack gap="md">
              <RunLivePanel run={run} readOnly={mode === "public"} />
              <LiveMutants run={run} />
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="figures">
            <BenchLoad bench={bench}>{(data) => <Figures data={data} />}</BenchLoad>
          </Tabs.Panel>
          <Tabs.Panel value="mutants">
            <BenchLoad bench={bench}>{(data) => <MutantsSection bots={benchBots(data)} />}</BenchLoad>
          </Tabs.Panel>
          <Tabs.Panel value="rules">
            <BenchLoad bench={bench}>{(data) => <OracleRules data={data} />}</BenchLoad>
          </Tabs.Panel>
          <Tabs.Panel value="report">
            <ReportTab runId={run.id} />
          </Tabs.Panel>
        </Stack>
      </Tabs>
    </Stack>
  );
}
