/**
 * The evaluation bench as a run kind: which projects can run it, starting one, what its row says
 * (`params`, `result`), its live mutant outcomes (`progress` events) and its figures (the `bench` artefact,
 * what `parley bench` writes as bench.json: `backend/engine/evaluation/run.py::run_bench`). Kills are differential:
 * a mutant is killed only by a finding signature the original never showed; `scores` holds the automatic score,
 * the one with the ground-truth oracles, and both counted the thesis's way for comparison.
 *
 * Everything is read with runtime checks: a field of the wrong shape is shown as missing. The strings (mutant
 * descriptions, rule names, warnings) come from the server and are rendered as text by the screens.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Connector } from "../workspace/connectors";
import { type RunEvent, startProjectRun, type StartRunInput } from "../runs/project-runs";
import { runKeys } from "../query-keys";
import { resultOf, type Run } from "../runs/runs";
import { isRecord, num, str, strings } from "../../lib/json";

export type MutationOperator = NonNullable<StartRunInput["operators"]>[number];

/**
 * The mutation operators, in the engine's order (`OPERATORS` in `backend/engine/bots/mutation.py`). The object
 * must name exactly the operators of the API schema's enum, so a change on the server fails type-checking here.
 */
const OPERATOR_NAMES = {
  "delete-enum-value": true,
  "change-optionality": true,
  "delete-qa-pair": true,
  "swap-qa-answers": true,
  "delete-menu-item": true,
  "delete-fallback": true,
  "delete-sequence-step": true,
  "swap-sequence-steps": true,
  "delete-response-data": true,
  "change-response-template": true,
  "change-memory-scope": true,
  "wrong-price-formula": true,
  "wrong-language": true,
  "repeat-loop": true,
  "crash-on-value": true,
} as const satisfies Record<MutationOperator, true>;

export const BENCH_OPERATORS = Object.keys(OPERATOR_NAMES) as MutationOperator[];

/** The server's limits and defaults for a bench (`backend/runs/serializers.py`). */
export const BENCH_LIMITS = {
  sessions: { min: 1, max: 50, initial: 5 },
  turns: { min: 2, max: 30, initial: 8 },
  repeats: { min: 1, max: 10, initial: 3 },
  mutantsPerOperator: { min: 0, max: 10, initial: 1 },
  concurrency: { min: 1, max: 16, initial: 4 },
} as const;

/** The kill reasons, in the engine's order (`KILL_REASONS` in `backend/engine/evaluation/findings.py`). */
export const KILL_REASONS = [
  "crash",
  "timeout",
  "loop",
  "unmet_goal",
  "missing_output",
  "no_refusal",
  "model_rule",
  "wrong_output",
  "failed_rule",
] as const;

/** The LLM usage phases of a bot, in the order they run. */
const PHASES = ["tracer", "judge", "sensei_original", "sensei_mutants", "sensei_controls"];

export type MutantStatus = "killed" | "live" | "inconclusive" | "stillborn";
export const MUTANT_STATUSES: readonly MutantStatus[] = ["killed", "live", "inconclusive", "stillborn"];

// -- small readers ---------------------------------------------------------------------------------------------

function rec(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** `[found, total]`, or null. */
function fraction(value: unknown): [number, number] | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [found, total] = value.map(num);
  return found === null || found === undefined || total === null || total === undefined ? null : [found, total];
}

/**
 * Sorts names by their place in `order` (names it does not list come last, alphabetically). Object keys cannot be
 * trusted to keep the engine's order: PostgreSQL's jsonb stores them sorted by length.
 */
function byOrder(order: readonly string[] = []) {
  const rank = (name: string) => {
    const index = order.indexOf(name);
    return index === -1 ? order.length : index;
  };
  return (a: string, b: string) => rank(a) - rank(b) || a.localeCompare(b);
}

/** `{name: count}` as pairs, sorted by `order` then by name, dropping what is not a count. */
function counts(value: unknown, order?: readonly string[]): [string, number][] {
  const compare = byOrder(order);
  return Object.entries(rec(value))
    .flatMap(([name, n]): [string, number][] => {
      const count = num(n);
      return count === null ? [] : [[name, count]];
    })
    .sort(([a], [b]) => compare(a, b));
}

function mutantStatus(value: unknown): MutantStatus | null {
  return MUTANT_STATUSES.find((status) => status === value) ?? null;
}

// -- which projects can run a bench ----------------------------------------------------------------------------

/**
 * The reference bot a connector points at, or null when a bench cannot use it: the server accepts only the
 * `demo` technology with an original bot (a mutant, `bot@mutant`, has no ground truth of its own).
 */
export function benchBotOf(connector: Pick<Connector, "technology" | "params"> | undefined): string | null {
  if (connector?.technology !== "demo") return null;
  const bot = str(rec(connector.params).bot).trim();
  return bot === "" || bot.includes("@") ? null : bot;
}

/** Starts a bench on a project; the run is put in the cache so its page shows at once. */
export function useStartBench() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, body }: { projectId: number; body: StartRunInput & { kind: "bench" } }) =>
      startProjectRun(projectId, body),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
      return queryClient.invalidateQueries({ queryKey: runKeys.lists });
    },
  });
}

// -- the run row -----------------------------------------------------------------------------------------------

export interface BenchSummary {
  bot: string;
  sessions: number | null;
  turns: number | null;
  repeats: number | null;
  mutantsPerOperator: number | null;
  /** Null: every operator. */
  operators: string[] | null;
  concurrency: number | null;
  seed: number | null;
  /** Percent (0…100), null when no mutant was scored: differential, with the ground-truth oracles. */
  mutationScore: number | null;
  /** Differential, automatic findings only (no ground truth). */
  mutationScoreAutomatic: number | null;
  mutants: number | null;
  killed: number | null;
  live: number | null;
  stillborn: number | null;
  precision: number | null;
  recall: number | null;
  falseAlarmRate: number | null;
}

/** What a bench was asked (`params`) and, once finished, its headline figures (`result`). */
export function readBenchSummary(run: Pick<Run, "params" | "result">): BenchSummary {
  const params = rec(run.params);
  const result = resultOf(run, "bench");
  return {
    bot: str(params.bot) || (result?.bot ?? ""),
    sessions: num(params.sessions),
    turns: num(params.turns),
    repeats: num(params.repeats),
    mutantsPerOperator: num(params.mutants_per_operator),
    operators: Array.isArray(params.operators) ? strings(params.operators) : null,
    concurrency: num(params.concurrency),
    seed: num(params.seed),
    mutationScore: result?.mutation_score ?? null,
    mutationScoreAutomatic: result?.mutation_score_automatic ?? null,
    mutants: result?.mutants ?? null,
    killed: result?.killed ?? null,
    live: result?.live ?? null,
    stillborn: result?.stillborn ?? null,
    precision: result?.precision ?? null,
    recall: result?.recall ?? null,
    falseAlarmRate: result?.false_alarm_rate ?? null,
  };
}

export interface MutantProgress {
  mutant: string;
  operator: string;
  status: MutantStatus | null;
  reasons: string[];
  done: number | null;
  total: number | null;
}

/** The mutant outcomes known so far, from the bench's `progress` events (one per mutant, latest wins). */
export function readMutantEvents(events: RunEvent[]): MutantProgress[] {
  const byId = new Map<string, MutantProgress>();
  for (const event of events) {
    if (event.type !== "progress") continue;
    const mutant = str(event.data.mutant);
    if (mutant === "") continue;
    byId.set(mutant, {
      mutant,
      operator: str(event.data.operator),
      status: mutantStatus(event.data.status),
      reasons: strings(event.data.reasons),
      done: num(event.data.done),
      total: num(event.data.total),
    });
  }
  return [...byId.values()];
}

// -- bench.json ------------------------------------------------------------------------------------------------

export const COVERAGE_DIMENSIONS = ["module", "input", "value", "question"] as const;
export type CoverageDimension = (typeof COVERAGE_DIMENSIONS)[number];

/** Coverage of the ground truth, in percent per dimension, with `[covered, total]` when known. */
export interface Coverage {
  percent: Record<CoverageDimension, number | null>;
  counts: Record<CoverageDimension, [number, number] | null>;
  conversations: number | null;
}

/** `coverage_percentages` (`backend/engine/bots/coverage.py`); its counts are keyed in the plural. */
function readCoverage(value: unknown): Coverage | null {
  if (!isRecord(value)) return null;
  const countsOf = rec(value.counts);
  const percent = {} as Record<CoverageDimension, number | null>;
  const covered = {} as Record<CoverageDimension, [number, number] | null>;
  for (const dimension of COVERAGE_DIMENSIONS) {
    percent[dimension] = num(value[dimension]);
    covered[dimension] = fraction(countsOf[`${dimension}s`]);
  }
  return { percent, counts: covered, conversations: num(value.conversations) };
}

export interface OperatorKills {
  operator: string;
  selected: number;
  killed: number;
  live: number;
  inconclusive: number;
  stillborn: number;
}

/** A finding signature the mutant showed, with how many repeats showed it on the mutant and on the original. */
export interface BenchKill {
  /** Kill reason, profile, conversation index, rule or output name. */
  signature: [string, string, number | null, string];
  reason: string;
  kind: string;
  mutantCount: number | null;
  originalCount: number | null;
  /** The original never showed it (and ran that conversation): this kill counts. */
  kills: boolean;
  evidence: string;
}

export interface BenchMutant {
  id: string;
  operator: string;
  description: string;
  /** Differential, with the ground-truth oracles. */
  status: MutantStatus | null;
  /** Differential, automatic findings only; null when bench.json does not say. */
  killedAutomatic: boolean | null;
  kills: BenchKill[];
  /** SENSEI runs on the mutant (with the original's seeds). */
  repeats: number | null;
  conversations: number | null;
  killingConversations: number | null;
  /** Kill reason → conversations showing it. */
  reasons: [string, number][];
  /** Failed rule → conversations. */
  rules: [string, number][];
  stillbornReason: string;
  error: string;
}

export interface MutationFigures {
  selected: number | null;
  killed: number | null;
  live: number | null;
  stillborn: number | null;
  inconclusive: number | null;
  /** Percent: killed / (killed + live). */
  score: number | null;
  perOperator: OperatorKills[];
  /** Kill reason → killed mutants showing it. */
  perReason: [string, number][];
}

function readMutation(value: unknown): MutationFigures {
  const data = rec(value);
  return {
    selected: num(data.selected),
    killed: num(data.killed),
    live: num(data.live),
    stillborn: num(data.stillborn),
    inconclusive: num(data.inconclusive),
    score: num(data.mutation_score),
    // Alphabetical, as bench.md lists them.
    perOperator: Object.entries(rec(data.kills_per_operator))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operator, row]) => {
        const r = rec(row);
        return {
          operator,
          selected: num(r.selected) ?? 0,
          killed: num(r.killed) ?? 0,
          live: num(r.live) ?? 0,
          inconclusive: num(r.inconclusive) ?? 0,
          stillborn: num(r.stillborn) ?? 0,
        };
      }),
    perReason: counts(data.kills_per_reason, KILL_REASONS),
  };
}

function readKill(row: Record<string, unknown>): BenchKill {
  const raw = Array.isArray(row.signature) ? (row.signature as unknown[]) : [];
  return {
    signature: [str(raw[0]), str(raw[1]), num(raw[2]), str(raw[3])],
    reason: str(row.reason),
    kind: str(row.kind),
    mutantCount: num(row.mutant_count),
    originalCount: num(row.original_count),
    kills: row.kills === true || (row.kills === undefined && num(row.original_count) === 0),
    evidence: str(row.evidence),
  };
}

function readMutant(row: Record<string, unknown>): BenchMutant {
  return {
    id: str(row.id),
    operator: str(row.operator),
    description: str(row.description),
    status: mutantStatus(row.status),
    killedAutomatic: typeof row.killed_automatic === "boolean" ? row.killed_automatic : null,
    kills: records(row.kills).map(readKill),
    repeats: num(row.repeats),
    conversations: num(row.conversations),
    killingConversations: num(row.killing_conversations),
    reasons: counts(row.reasons, KILL_REASONS),
    rules: counts(row.rules),
    stillbornReason: str(row.stillborn_reason),
    error: str(row.error),
  };
}

/** One way of counting the mutation score (bench.json `scores.*`). */
export interface ScoreFigures {
  killed: number | null;
  scored: number | null;
  /** Percent: killed / (killed + live). */
  score: number | null;
  /** Wilson 95 % interval, in percent. */
  ci95: [number, number] | null;
}

export interface BenchScores {
  automatic: ScoreFigures;
  withOracles: ScoreFigures;
  thesisAutomatic: ScoreFigures;
  thesisWithOracles: ScoreFigures;
}

function readScore(value: unknown): ScoreFigures {
  const data = rec(value);
  return { killed: num(data.killed), scored: num(data.scored), score: num(data.score), ci95: fraction(data.ci95) };
}

function readScores(value: unknown): BenchScores {
  const data = rec(value);
  const thesis = rec(data.thesis_rule);
  return {
    automatic: readScore(data.automatic),
    withOracles: readScore(data.with_oracles),
    thesisAutomatic: readScore(thesis.automatic),
    thesisWithOracles: readScore(thesis.with_oracles),
  };
}

/** The control runs: the unmodified bot run again as a mutant; whatever "kills" one is noise. */
export interface ControlFigures {
  runs: number | null;
  killedAutomatic: number | null;
  killedWithOracles: number | null;
}

function readControls(value: unknown): ControlFigures {
  const data = rec(value);
  return {
    runs: num(data.runs),
    killedAutomatic: num(rec(data.automatic).killed),
    killedWithOracles: num(rec(data.with_oracles).killed),
  };
}

export interface BenchUsage {
  calls: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  unpricedCalls: number | null;
  wallSeconds: number | null;
}

function readUsage(value: unknown): BenchUsage {
  const data = rec(value);
  return {
    calls: num(data.calls),
    promptTokens: num(data.prompt_tokens),
    completionTokens: num(data.completion_tokens),
    costUsd: num(data.cost_usd),
    unpricedCalls: num(data.unpriced_calls),
    wallSeconds: num(data.wall_s),
  };
}

export interface FalseAlarms {
  conversations: number | null;
  falseAlarms: number | null;
  /** Percent of the conversations on the unmutated bot with a finding (with the oracles). */
  rate: number | null;
  /** Percent with an automatic finding (no ground truth). */
  rateAutomatic: number | null;
  reasons: [string, number][];
  rules: [string, number][];
}

function readFalseAlarms(value: unknown): FalseAlarms {
  const data = rec(value);
  return {
    conversations: num(data.conversations),
    falseAlarms: num(data.false_alarms),
    rate: num(data.rate),
    rateAutomatic: num(rec(data.automatic).rate),
    reasons: counts(data.reasons, KILL_REASONS),
    rules: counts(data.rules),
  };
}

export interface BenchRule {
  name: string;
  kind: string;
  /** "automatic": written from TRACER's model; "oracle": from the ground truth. */
  source: string;
  description: string;
}

export interface BenchProfile {
  name: string;
  model: string;
  temperature: number | null;
  goals: number | null;
}

export interface BenchBot {
  id: string;
  name: string;
  sizes: { modules: number | null; inputs: number | null; values: number | null; questions: number | null };
  tracer: {
    coverage: Coverage | null;
    functionalities: number | null;
    profiles: number | null;
    validProfiles: number | null;
    precision: number | null;
    recall: number | null;
    truePositives: number | null;
    falsePositives: number | null;
    recallModules: [number, number] | null;
    recallInputs: [number, number] | null;
    missedModules: string[];
    missedInputs: string[];
    warnings: string[];
    /** "llm": a judge model matched the functionalities; "lexical": word overlap, an approximation. */
    matcher: string;
  };
  profiles: BenchProfile[];
  rules: BenchRule[];
  sensei: {
    repeats: number | null;
    conversationsPerRun: number | null;
    median: Coverage | null;
    aggregate: Coverage | null;
    falseAlarms: FalseAlarms;
  };
  mutation: MutationFigures;
  mutants: BenchMutant[];
  scores: BenchScores;
  controls: ControlFigures;
  usage: BenchUsage;
  phases: (BenchUsage & { phase: string })[];
}

function readBot(id: string, value: unknown): BenchBot {
  const data = rec(value);
  const sizes = rec(data.sizes);
  const tracer = rec(data.tracer);
  const sensei = rec(data.sensei);
  const senseiCoverage = rec(sensei.coverage);
  const mutation = rec(data.mutation);
  const usage = rec(data.usage);
  return {
    id: str(data.bot) || id,
    name: str(data.name) || id,
    sizes: {
      modules: num(sizes.modules),
      inputs: num(sizes.inputs),
      values: num(sizes.values),
      questions: num(sizes.questions),
    },
    tracer: {
      coverage: readCoverage(tracer.coverage),
      functionalities: num(tracer.functionalities),
      profiles: num(tracer.profiles),
      validProfiles: num(tracer.valid_profiles),
      precision: num(tracer.precision),
      recall: num(tracer.recall),
      truePositives: num(tracer.true_positives),
      falsePositives: num(tracer.false_positives),
      recallModules: fraction(tracer.recall_modules),
      recallInputs: fraction(tracer.recall_inputs),
      missedModules: strings(tracer.missed_modules),
      missedInputs: strings(tracer.missed_inputs),
      warnings: strings(tracer.warnings),
      matcher: str(tracer.matcher),
    },
    profiles: records(data.profiles).map((p) => ({
      name: str(p.name),
      model: str(p.model),
      temperature: num(p.temperature),
      goals: num(p.goals),
    })),
    rules: records(data.rules).map((r) => ({
      name: str(r.name),
      kind: str(r.kind),
      source: str(r.source) || "oracle",
      description: str(r.description),
    })),
    sensei: {
      repeats: num(sensei.repeats),
      conversationsPerRun: num(sensei.conversations_per_run),
      median: readCoverage(senseiCoverage.median),
      aggregate: readCoverage(senseiCoverage.aggregate),
      falseAlarms: readFalseAlarms(sensei.false_alarms),
    },
    mutation: readMutation(mutation),
    mutants: records(mutation.mutants).map(readMutant),
    scores: readScores(data.scores),
    controls: readControls(data.controls),
    usage: readUsage(usage),
    phases: Object.entries(rec(usage.phases))
      .sort(([a], [b]) => byOrder(PHASES)(a, b))
      .map(([phase, row]) => ({ phase, ...readUsage(row) })),
  };
}

export interface BenchConfigInfo {
  provider: string;
  model: string;
  /** Null: the provider's default. */
  temperature: number | null;
  sessions: number | null;
  turns: number | null;
  repeats: number | null;
  mutantsPerOperator: number | null;
  operators: string[] | null;
  concurrency: number | null;
  seed: number | null;
  today: string;
  /** What the model is when its name does not say (e.g. "fake LLM: …"). */
  llmNote: string;
  parleyVersion: string;
}

export interface BenchData {
  config: BenchConfigInfo;
  bots: BenchBot[];
  scores: BenchScores;
  overall: {
    precision: number | null;
    recall: number | null;
    matcher: string;
    controls: ControlFigures;
    falseAlarms: FalseAlarms;
    mutation: MutationFigures;
    usage: BenchUsage;
    tracerCoverage: Coverage | null;
    senseiCoverage: Coverage | null;
  };
  wallSeconds: number | null;
}

/** The `bench` artefact (bench.json). */
export function readBench(content: unknown): BenchData {
  const data = rec(content);
  const config = rec(data.config);
  const provenance = rec(data.provenance);
  const overall = rec(data.overall);
  const usage = readUsage(overall.usage);
  const wallSeconds = num(data.wall_s) ?? num(overall.wall_s);
  const botOrder = byOrder(strings(config.bots));
  return {
    config: {
      provider: str(config.provider),
      model: str(config.model),
      temperature: num(config.temperature),
      sessions: num(config.sessions),
      turns: num(config.turns),
      repeats: num(config.repeats),
      mutantsPerOperator: num(config.mutants_per_operator),
      operators: Array.isArray(config.operators) ? strings(config.operators) : null,
      concurrency: num(config.concurrency),
      seed: num(config.seed),
      today: str(config.today),
      llmNote: str(provenance.llm_note) || str(config.llm_note),
      parleyVersion: str(provenance.parley_version),
    },
    bots: Object.entries(rec(data.bots))
      .sort(([a], [b]) => botOrder(a, b))
      .map(([id, bot]) => readBot(id, bot)),
    scores: readScores(data.scores),
    overall: {
      precision: num(overall.precision),
      recall: num(overall.recall),
      matcher: str(overall.matcher),
      controls: readControls(overall.controls),
      falseAlarms: readFalseAlarms(overall.false_alarms),
      mutation: readMutation(overall.mutation),
      usage: { ...usage, wallSeconds: wallSeconds ?? usage.wallSeconds },
      tracerCoverage: readCoverage(overall.tracer_coverage_mean),
      senseiCoverage: readCoverage(overall.sensei_coverage_mean),
    },
    wallSeconds,
  };
}
