/**
 * A finished bench's figures: the headline (the differential mutation scores, with the ground-truth oracles and
 * automatic, the thesis's way beside them, the control runs' spurious kills, TRACER precision and recall, false
 * alarms, LLM calls, tokens, cost, wall time) with the model they were measured with, coverage of TRACER against
 * SENSEI, kills per operator and per reason, what TRACER found, and the LLM usage per phase.
 */
import { Alert, Badge, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import {
  type BenchBot,
  type BenchData,
  type Coverage,
  COVERAGE_DIMENSIONS,
  type CoverageDimension,
} from "../../api/bench/runs-bench";
import { counted } from "../../lib/text";
import { formatCost, formatCount, formatPoints, formatSeconds } from "../dashboards/format";
import { formatFraction, formatTokens, PHASE_LABEL, REASON_HELP } from "./bench-text";
import { KillsPerOperatorChart } from "./KillsPerOperatorChart";

const DIMENSION_LABEL: Record<CoverageDimension, string> = {
  module: "Module",
  input: "Input",
  value: "Value",
  question: "Question",
};

/** One headline figure: a labelled group, so that it reads (and is found) as "label: value". */
function Figure({ label, value, hint }: { label: string; value: string; hint?: ReactNode }) {
  return (
    <Paper withBorder p="sm" role="group" aria-label={label}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
      {hint !== undefined && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** The model and settings every figure depends on: scores are comparable only between equal set-ups. */
export function MeasuredWith({ data }: { data: BenchData }) {
  const c = data.config;
  const temperature = c.temperature === null ? "the provider's default" : String(c.temperature);
  const operators = c.operators === null || c.operators.length === 0 ? "all operators" : c.operators.join(", ");
  const sentences = [
    `Measured with ${c.provider || "?"} · model ${c.model || "?"}${c.llmNote ? ` (${c.llmNote})` : ""}`,
    `· temperature ${temperature}${c.parleyVersion ? ` · Parley ${c.parleyVersion}` : ""}.`,
    `TRACER ${counted(c.sessions, "session")} × ${counted(c.turns, "turn")};`,
    `${counted(c.repeats, "SENSEI run")} on the original and on each mutant, same seeds;`,
    `up to ${counted(c.mutantsPerOperator, "mutant")} per operator (${operators});`,
    `seed ${formatCount(c.seed)}${c.today ? `; bots' date ${c.today}` : ""}.`,
  ];
  return (
    <Text size="sm" aria-label="Measured with">
      {sentences.join(" ")}
    </Text>
  );
}

function scoreHint(score: { killed: number | null; scored: number | null; ci95: [number, number] | null }) {
  const ci = score.ci95 === null ? "" : ` · 95% CI ${formatPoints(score.ci95[0])}–${formatPoints(score.ci95[1])}`;
  return `${formatCount(score.killed)} of ${formatCount(score.scored)} killed${ci}`;
}

export function Headline({ data }: { data: BenchData }) {
  const { mutation, usage, falseAlarms, controls } = data.overall;
  const { scores } = data;
  const modules = data.bots.map((b) => b.tracer.recallModules).filter((f): f is [number, number] => f !== null);
  const inputs = data.bots.map((b) => b.tracer.recallInputs).filter((f): f is [number, number] => f !== null);
  const sum = (fractions: [number, number][]) =>
    fractions.length === 0
      ? null
      : fractions.reduce<[number, number]>((acc, [a, b]) => [acc[0] + a, acc[1] + b], [0, 0]);
  const functionalities = data.bots.reduce((n, b) => n + (b.tracer.functionalities ?? 0), 0);
  const approximation = data.overall.matcher === "llm" ? "" : " (approximation: lexical matcher)";
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
      <Figure
        label="Mutation score"
        value={formatPoints(scores.withOracles.score ?? mutation.score)}
        hint={`with oracles, differential: ${scoreHint(scores.withOracles)}`}
      />
      <Figure
        label="Mutation score, automatic"
        value={formatPoints(scores.automatic.score)}
        hint={`no ground truth, differential: ${scoreHint(scores.automatic)}`}
      />
      <Figure
        label="Thesis rule"
        value={formatPoints(scores.thesisWithOracles.score)}
        hint="any finding on the mutant kills, even one the original shows too — for comparison only"
      />
      <Figure
        label="Controls killed by noise"
        value={`${formatCount(controls.killedWithOracles)} of ${formatCount(controls.runs)}`}
        hint="the unmodified bot run again as a mutant"
      />
      <Figure
        label="Mutants"
        value={`${formatCount(mutation.killed)} killed · ${formatCount(mutation.live)} live`}
        hint={`${formatCount(mutation.inconclusive)} inconclusive · ${formatCount(mutation.stillborn)} stillborn (not counted)`}
      />
      <Figure
        label="TRACER precision"
        value={formatPoints(data.overall.precision)}
        hint={`of ${counted(functionalities, "functionality", "functionalities")} found${approximation}`}
      />
      <Figure
        label="TRACER recall"
        value={formatPoints(data.overall.recall)}
        hint={`modules ${formatFraction(sum(modules)) || "—"} · inputs ${formatFraction(sum(inputs)) || "—"}${approximation}`}
      />
      <Figure
        label="False alarms"
        value={formatPoints(falseAlarms.rate)}
        hint={`${formatCount(falseAlarms.falseAlarms)} of ${counted(falseAlarms.conversations, "conversation")} on the original; automatic only ${formatPoints(falseAlarms.rateAutomatic)}`}
      />
      <Figure label="LLM calls" value={formatCount(usage.calls)} />
      <Figure
        label="Tokens"
        value={formatTokens(usage.promptTokens, usage.completionTokens)}
        hint="prompt + completion"
      />
      <Figure
        label="Cost"
        value={formatCost(usage.costUsd)}
        hint={usage.unpricedCalls ? `${counted(usage.unpricedCalls, "call")} unpriced` : undefined}
      />
      <Figure label="Wall time" value={formatSeconds(data.wallSeconds)} />
    </SimpleGrid>
  );
}

/** The live mutants across bots: the faults the generated tests did not notice. */
export function LiveMutantsAlert({ data }: { data: BenchData }) {
  const live = data.bots.flatMap((bot) =>
    bot.mutants.filter((m) => m.status === "live").map((m) => ({ bot: bot.id, ...m })),
  );
  const scored = (data.overall.mutation.killed ?? 0) + (data.overall.mutation.live ?? 0);
  if (live.length === 0) {
    return scored > 0 ? (
      <Alert color="teal" title="Every scored mutant was killed">
        Each injected fault made at least one conversation fail.
      </Alert>
    ) : null;
  }
  return (
    <Alert color="red" title={`${String(live.length)} live mutants: faults the tests missed`}>
      <Stack gap={4} component="ul" m={0} p={0} style={{ listStyle: "none" }} aria-label="Live mutants">
        {live.map((m) => (
          <Group key={`${m.bot}/${m.id}`} component="li" gap="xs" wrap="nowrap" align="baseline">
            <Code>{m.id}</Code>
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              {m.description}
            </Text>
          </Group>
        ))}
      </Stack>
    </Alert>
  );
}

function CoverageCell({ coverage, dimension }: { coverage: Coverage | null; dimension: CoverageDimension }) {
  if (coverage === null) return <Table.Td>—</Table.Td>;
  const counts = coverage.counts[dimension];
  return (
    <Table.Td>
      {formatPoints(coverage.percent[dimension])}
      {counts && (
        <Text span size="xs" c="dimmed">
          {` (${formatFraction(counts)})`}
        </Text>
      )}
    </Table.Td>
  );
}

export function CoverageTable({ bot }: { bot: BenchBot }) {
  const rows: [string, Coverage | null][] = [
    ["TRACER", bot.tracer.coverage],
    ["SENSEI, median run", bot.sensei.median],
    ["SENSEI, all runs", bot.sensei.aggregate],
  ];
  const s = bot.sizes;
  return (
    <Stack gap={4}>
      <Table withTableBorder fz="sm" aria-label={`Coverage of ${bot.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Tool</Table.Th>
            {COVERAGE_DIMENSIONS.map((d) => (
              <Table.Th key={d}>{DIMENSION_LABEL[d]}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([label, coverage]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={500}>
                {label}
              </Table.Th>
              {COVERAGE_DIMENSIONS.map((d) => (
                <CoverageCell key={d} coverage={coverage} dimension={d} />
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        {[
          `Ground truth of ${bot.name}: ${counted(s.modules, "module")}, ${counted(s.inputs, "input")},`,
          `${counted(s.values, "value")}, ${counted(s.questions, "FAQ question")}.`,
          `SENSEI ran ${counted(bot.sensei.repeats, "time")} on the original,`,
          `${counted(bot.sensei.conversationsPerRun, "conversation")} each.`,
        ].join(" ")}
      </Text>
    </Stack>
  );
}

export function KillsPerOperator({ data }: { data: BenchData }) {
  const rows = data.overall.mutation.perOperator;
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md" style={{ alignItems: "start" }}>
      <Table withTableBorder fz="sm" aria-label="Kills per operator">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Operator</Table.Th>
            <Table.Th>Selected</Table.Th>
            <Table.Th>Killed</Table.Th>
            <Table.Th>Live</Table.Th>
            <Table.Th>Inconclusive</Table.Th>
            <Table.Th>Stillborn</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 && (
            <Table.Tr>
              <Table.Td colSpan={6}>
                <Text size="sm" c="dimmed">
                  No mutant was selected.
                </Text>
              </Table.Td>
            </Table.Tr>
          )}
          {rows.map((row) => (
            <Table.Tr key={row.operator}>
              <Table.Td ff="monospace">{row.operator}</Table.Td>
              <Table.Td>{row.selected}</Table.Td>
              <Table.Td>{row.killed}</Table.Td>
              <Table.Td>
                <Text size="sm" c={row.live > 0 ? "red" : undefined} fw={row.live > 0 ? 600 : undefined}>
                  {row.live}
                </Text>
              </Table.Td>
              <Table.Td>{row.inconclusive}</Table.Td>
              <Table.Td>{row.stillborn}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <KillsPerOperatorChart rows={rows} />
    </SimpleGrid>
  );
}

function ReasonTable({ label, rows, unit }: { label: string; rows: [string, number][]; unit: string }) {
  return (
    <Table withTableBorder fz="sm" aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Reason</Table.Th>
          <Table.Th>{unit}</Table.Th>
          <Table.Th>Meaning</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={3}>
              <Text size="sm" c="dimmed">
                None.
              </Text>
            </Table.Td>
          </Table.Tr>
        )}
        {rows.map(([reason, count]) => (
          <Table.Tr key={reason}>
            <Table.Td ff="monospace">{reason}</Table.Td>
            <Table.Td>{count}</Table.Td>
            <Table.Td>
              <Text size="xs" c="dimmed">
                {REASON_HELP[reason] ?? ""}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function KillsPerReason({ data }: { data: BenchData }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <Stack gap={4}>
        <Title order={3} size="h6">
          Why mutants were killed
        </Title>
        <ReasonTable label="Kills per reason" rows={data.overall.mutation.perReason} unit="Killed mutants" />
      </Stack>
      <Stack gap={4}>
        <Title order={3} size="h6">
          False alarms on the original, by reason
        </Title>
        <ReasonTable
          label="False alarms per reason"
          rows={data.bots.flatMap((bot) => bot.sensei.falseAlarms.reasons)}
          unit="Conversations"
        />
      </Stack>
    </SimpleGrid>
  );
}

export function TracerFindings({ bot }: { bot: BenchBot }) {
  const t = bot.tracer;
  return (
    <Stack gap="xs">
      <Text size="sm">
        {[
          `TRACER found ${counted(t.functionalities, "functionality", "functionalities")}:`,
          `precision ${formatPoints(t.precision)}`,
          `(${formatCount(t.truePositives)} real, ${formatCount(t.falsePositives)} not real or duplicates),`,
          `recall ${formatPoints(t.recall)}`,
          `(modules ${formatFraction(t.recallModules) || "—"}, inputs ${formatFraction(t.recallInputs) || "—"})`,
          t.matcher === "llm" ? "matched by a judge model;" : "(approximation: matched by word overlap);",
          `${formatCount(t.validProfiles)} valid profiles of ${formatCount(t.profiles)}.`,
        ].join(" ")}
      </Text>
      {(t.missedModules.length > 0 || t.missedInputs.length > 0) && (
        <Group gap={4} aria-label="Missed by TRACER">
          <Text size="sm" c="dimmed">
            Missed:
          </Text>
          {[...t.missedModules, ...t.missedInputs].map((name) => (
            <Badge key={name} variant="outline" color="gray" tt="none">
              {name}
            </Badge>
          ))}
        </Group>
      )}
      {t.warnings.length > 0 && (
        <Alert color="yellow" title="TRACER's warnings">
          <Stack gap={2}>
            {t.warnings.map((warning) => (
              <Text key={warning} size="sm">
                {warning}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}
      {bot.profiles.length > 0 && (
        <Table withTableBorder fz="sm" aria-label={`Profiles of ${bot.name}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Profile SENSEI played</Table.Th>
              <Table.Th>Model</Table.Th>
              <Table.Th>Temperature</Table.Th>
              <Table.Th>Goals</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {bot.profiles.map((profile, index) => (
              <Table.Tr key={`${profile.name}-${String(index)}`}>
                <Table.Td>{profile.name}</Table.Td>
                <Table.Td>{profile.model || "—"}</Table.Td>
                <Table.Td>{profile.temperature === null ? "default" : String(profile.temperature)}</Table.Td>
                <Table.Td>{formatCount(profile.goals)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

export function UsagePerPhase({ bot }: { bot: BenchBot }) {
  if (bot.phases.length === 0) return null;
  return (
    <Table withTableBorder fz="sm" aria-label={`LLM usage per phase of ${bot.name}`}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Phase</Table.Th>
          <Table.Th>LLM calls</Table.Th>
          <Table.Th>Tokens</Table.Th>
          <Table.Th>Cost</Table.Th>
          <Table.Th>Time</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {bot.phases.map((row) => (
          <Table.Tr key={row.phase}>
            <Table.Td>{PHASE_LABEL[row.phase] ?? row.phase}</Table.Td>
            <Table.Td>{formatCount(row.calls)}</Table.Td>
            <Table.Td>{formatTokens(row.promptTokens, row.completionTokens)}</Table.Td>
            <Table.Td>{formatCost(row.costUsd)}</Table.Td>
            <Table.Td>{formatSeconds(row.wallSeconds)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
