/**
 * A finished bench's figures: the headline (the differential mutation scores, with the ground-truth oracles and
 * automatic, the thesis's way beside them, the control runs' spurious kills, TRACER precision and recall, false
 * alarms, LLM calls, tokens, cost, wall time) with the model they were measured with, coverage of TRACER against
 * SENSEI, kills per operator and per reason, what TRACER found, and the LLM usage per phase.
 */
import { Alert, Badge, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import {
  type BenchReport,
  benchBots,
  type BotReport,
  type Coverage,
  KILL_REASONS,
  type KillRate,
  operatorRows,
  orderedCounts,
  phasesOf,
} from "../../api/bench/runs-bench";
import { counted } from "../../lib/text";
import { formatCost, formatCount, formatPoints, formatSeconds } from "../dashboards/format";
import { formatFraction, formatTokens, PHASE_LABEL, REASON_HELP } from "./bench-text";
import { KillsPerOperatorChart } from "./KillsPerOperatorChart";

/** The dimensions of the ground truth: a percentage of `Coverage`, its label, and its `[covered, total]` count. */
const DIMENSIONS = [
  ["module", "Module", "modules"],
  ["input", "Input", "inputs"],
  ["value", "Value", "values"],
  ["question", "Question", "questions"],
] as const;
type Dimension = (typeof DIMENSIONS)[number];

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
export function MeasuredWith({ data }: { data: BenchReport }) {
  const c = data.config;
  const llmNote = data.provenance.llm_note ?? c.llm_note;
  const version = data.provenance.parley_version;
  const temperature = c.temperature === null ? "the provider's default" : String(c.temperature);
  const operators = c.operators === null || c.operators.length === 0 ? "all operators" : c.operators.join(", ");
  const sentences = [
    `Measured with ${c.provider ?? "?"} · model ${c.model ?? "?"}${llmNote ? ` (${llmNote})` : ""}`,
    `· temperature ${temperature}${version ? ` · Parley ${version}` : ""}.`,
    `TRACER ${counted(c.sessions, "session")} × ${counted(c.turns, "turn")};`,
    `${counted(c.repeats, "SENSEI run")} on the original and on each mutant, same seeds;`,
    `up to ${counted(c.mutants_per_operator, "mutant")} per operator (${operators});`,
    `seed ${formatCount(c.seed)}${c.today ? `; bots' date ${c.today}` : ""}.`,
  ];
  return (
    <Text size="sm" aria-label="Measured with">
      {sentences.join(" ")}
    </Text>
  );
}

function scoreHint(score: KillRate) {
  const [low, high] = score.ci95 ?? [];
  const ci = low === undefined || high === undefined ? "" : ` · 95% CI ${formatPoints(low)}–${formatPoints(high)}`;
  return `${formatCount(score.killed)} of ${formatCount(score.scored)} killed${ci}`;
}

export function Headline({ data }: { data: BenchReport }) {
  const { mutation, usage, false_alarms: falseAlarms, controls } = data.overall;
  const { scores } = data;
  const bots = benchBots(data);
  const sum = (fractions: number[][]) =>
    fractions.length === 0
      ? null
      : fractions.reduce<[number, number]>((acc, [a = 0, b = 0]) => [acc[0] + a, acc[1] + b], [0, 0]);
  const modules = sum(bots.map((b) => b.tracer.recall_modules).filter((f) => f.length === 2));
  const inputs = sum(bots.map((b) => b.tracer.recall_inputs).filter((f) => f.length === 2));
  const functionalities = bots.reduce((n, b) => n + b.tracer.functionalities, 0);
  const approximation = data.overall.matcher === "llm" ? "" : " (approximation: lexical matcher)";
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm">
      <Figure
        label="Mutation score"
        value={formatPoints(scores.with_oracles.score ?? mutation.mutation_score)}
        hint={`with oracles, differential: ${scoreHint(scores.with_oracles)}`}
      />
      <Figure
        label="Mutation score, automatic"
        value={formatPoints(scores.automatic.score)}
        hint={`no ground truth, differential: ${scoreHint(scores.automatic)}`}
      />
      <Figure
        label="Thesis rule"
        value={formatPoints(scores.thesis_rule.with_oracles.score)}
        hint="any finding on the mutant kills, even one the original shows too — for comparison only"
      />
      <Figure
        label="Controls killed by noise"
        value={`${formatCount(controls.with_oracles.killed)} of ${formatCount(controls.runs)}`}
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
        hint={`modules ${formatFraction(modules) || "—"} · inputs ${formatFraction(inputs) || "—"}${approximation}`}
      />
      <Figure
        label="False alarms"
        value={formatPoints(falseAlarms.rate)}
        hint={`${formatCount(falseAlarms.false_alarms)} of ${counted(falseAlarms.conversations, "conversation")} on the original; automatic only ${formatPoints(falseAlarms.automatic.rate)}`}
      />
      <Figure label="LLM calls" value={formatCount(usage.calls)} />
      <Figure
        label="Tokens"
        value={formatTokens(usage.prompt_tokens, usage.completion_tokens)}
        hint="prompt + completion"
      />
      <Figure
        label="Cost"
        value={formatCost(usage.cost_usd)}
        hint={usage.unpriced_calls ? `${counted(usage.unpriced_calls, "call")} unpriced` : undefined}
      />
      <Figure label="Wall time" value={formatSeconds(data.wall_s)} />
    </SimpleGrid>
  );
}

/** The live mutants across bots: the faults the generated tests did not notice. */
export function LiveMutantsAlert({ data }: { data: BenchReport }) {
  const live = benchBots(data).flatMap((bot) =>
    bot.mutation.mutants.filter((m) => m.status === "live").map((m) => ({ ...m, bot: bot.bot })),
  );
  const scored = data.overall.mutation.killed + data.overall.mutation.live;
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

function CoverageCell({ coverage, dimension }: { coverage: Coverage | null; dimension: Dimension }) {
  if (coverage === null) return <Table.Td>—</Table.Td>;
  const [percent, , countsKey] = dimension;
  const counts = coverage.counts?.[countsKey] ?? [];
  return (
    <Table.Td>
      {formatPoints(coverage[percent])}
      {counts.length === 2 && (
        <Text span size="xs" c="dimmed">
          {` (${formatFraction(counts)})`}
        </Text>
      )}
    </Table.Td>
  );
}

export function CoverageTable({ bot }: { bot: BotReport }) {
  const rows: [string, Coverage | null][] = [
    ["TRACER", bot.tracer.coverage],
    ["SENSEI, median run", bot.sensei.coverage.median],
    ["SENSEI, all runs", bot.sensei.coverage.aggregate],
  ];
  const s = bot.sizes;
  return (
    <Stack gap={4}>
      <Table withTableBorder fz="sm" aria-label={`Coverage of ${bot.name}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Tool</Table.Th>
            {DIMENSIONS.map(([key, label]) => (
              <Table.Th key={key}>{label}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([label, coverage]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={500}>
                {label}
              </Table.Th>
              {DIMENSIONS.map((d) => (
                <CoverageCell key={d[0]} coverage={coverage} dimension={d} />
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
          `${counted(bot.sensei.conversations_per_run, "conversation")} each.`,
        ].join(" ")}
      </Text>
    </Stack>
  );
}

export function KillsPerOperator({ data }: { data: BenchReport }) {
  const rows = operatorRows(data);
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

export function KillsPerReason({ data }: { data: BenchReport }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <Stack gap={4}>
        <Title order={3} size="h6">
          Why mutants were killed
        </Title>
        <ReasonTable
          label="Kills per reason"
          rows={orderedCounts(data.overall.mutation.kills_per_reason, KILL_REASONS)}
          unit="Killed mutants"
        />
      </Stack>
      <Stack gap={4}>
        <Title order={3} size="h6">
          False alarms on the original, by reason
        </Title>
        <ReasonTable
          label="False alarms per reason"
          rows={benchBots(data).flatMap((bot) => orderedCounts(bot.sensei.false_alarms.reasons, KILL_REASONS))}
          unit="Conversations"
        />
      </Stack>
    </SimpleGrid>
  );
}

export function TracerFindings({ bot }: { bot: BotReport }) {
  const t = bot.tracer;
  return (
    <Stack gap="xs">
      <Text size="sm">
        {[
          `TRACER found ${counted(t.functionalities, "functionality", "functionalities")}:`,
          `precision ${formatPoints(t.precision)}`,
          `(${formatCount(t.true_positives)} real, ${formatCount(t.false_positives)} not real or duplicates),`,
          `recall ${formatPoints(t.recall)}`,
          `(modules ${formatFraction(t.recall_modules) || "—"}, inputs ${formatFraction(t.recall_inputs) || "—"})`,
          t.matcher === "llm" ? "matched by a judge model;" : "(approximation: matched by word overlap);",
          `${formatCount(t.valid_profiles)} valid profiles of ${formatCount(t.profiles)}.`,
        ].join(" ")}
      </Text>
      {(t.missed_modules.length > 0 || t.missed_inputs.length > 0) && (
        <Group gap={4} aria-label="Missed by TRACER">
          <Text size="sm" c="dimmed">
            Missed:
          </Text>
          {[...t.missed_modules, ...t.missed_inputs].map((name) => (
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
                <Table.Td>{profile.model ?? "—"}</Table.Td>
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

export function UsagePerPhase({ bot }: { bot: BotReport }) {
  const phases = phasesOf(bot);
  if (phases.length === 0) return null;
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
        {phases.map((row) => (
          <Table.Tr key={row.phase}>
            <Table.Td>{PHASE_LABEL[row.phase] ?? row.phase}</Table.Td>
            <Table.Td>{formatCount(row.calls)}</Table.Td>
            <Table.Td>{formatTokens(row.prompt_tokens, row.completion_tokens)}</Table.Td>
            <Table.Td>{formatCost(row.cost_usd)}</Table.Td>
            <Table.Td>{formatSeconds(row.wall_s)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
