/**
 * The evaluation bench as a run kind: which projects can run it, starting one, what its row says
 * (`params`, `result`), its live mutant outcomes (`progress` events) and its figures (the `bench` artefact, what
 * `parley bench` writes as bench.json: `BenchReport` in the API schema, `backend/engine/evaluation/bench_report.py`).
 * Kills are differential: a mutant is killed only by a finding signature the original never showed; `scores` holds
 * the automatic score, the one with the ground-truth oracles, and both counted the thesis's way for comparison.
 *
 * The figures are typed by the schema. The run's `params` and its events are free-form JSON, read with runtime
 * checks. The strings (mutant descriptions, rule names, warnings) come from the server and are rendered as text.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Connector } from "../workspace/connectors";
import { type RunEvent, startProjectRun, type StartRunInput } from "../runs/project-runs";
import { runKeys } from "../query-keys";
import { resultOf, type Run } from "../runs/runs";
import type { components } from "../schema";
import { num, str, strings } from "../../lib/json";

type Schemas = components["schemas"];
export type BenchReport = Schemas["BenchReport"];
export type BotReport = Schemas["BotReport"];
export type MutantResult = Schemas["MutantResult"];
export type Coverage = Schemas["GroundTruthCoverage"];
export type OperatorKills = Schemas["OperatorKills"];
export type KillRate = Schemas["KillRate"];
export type PhaseUsage = Schemas["PhaseUsage"];
export type MutantStatus = MutantResult["status"];

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

export const MUTANT_STATUSES: readonly MutantStatus[] = ["killed", "live", "inconclusive", "stillborn"];

// -- the report in the engine's order -------------------------------------------------------------------------

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

/** `{name: count}` as pairs, sorted by `order` then by name. */
export function orderedCounts(counts: Record<string, number>, order?: readonly string[]): [string, number][] {
  const compare = byOrder(order);
  return Object.entries(counts).sort(([a], [b]) => compare(a, b));
}

/** The bots in the order the bench ran them (`config.bots`). */
export function benchBots(report: BenchReport): BotReport[] {
  const compare = byOrder(report.config.bots);
  return Object.entries(report.bots)
    .sort(([a], [b]) => compare(a, b))
    .map(([, bot]) => bot);
}

/** A bot's LLM usage per phase, in the order the phases run. */
export function phasesOf(bot: BotReport): (PhaseUsage & { phase: string })[] {
  return Object.entries(bot.usage.phases)
    .sort(([a], [b]) => byOrder(PHASES)(a, b))
    .map(([phase, usage]) => ({ phase, ...usage }));
}

export type OperatorRow = OperatorKills & { operator: string };

/** Kills per operator, alphabetical as bench.md lists them. */
export function operatorRows(report: BenchReport): OperatorRow[] {
  return Object.entries(report.overall.mutation.kills_per_operator)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operator, row]) => ({ operator, ...row }));
}

// -- which projects can run a bench ----------------------------------------------------------------------------

/**
 * The reference bot a connector points at, or null when a bench cannot use it: the server accepts only the
 * `demo` technology with an original bot (a mutant, `bot@mutant`, has no ground truth of its own).
 */
export function benchBotOf(connector: Pick<Connector, "technology" | "params"> | undefined): string | null {
  if (connector?.technology !== "demo") return null;
  const bot = str(connector.params?.bot).trim();
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

// -- the run row ---------------------------------------------------------------------------------------------

/** What a bench was asked: its `params`, which the schema leaves free-form (each run kind has its own). */
export interface BenchSettings {
  bot: string;
  repeats: number | null;
  mutantsPerOperator: number | null;
  /** Null: every operator. */
  operators: string[] | null;
}

/** The settings of a bench run, its bot named by its result when the params do not say. */
export function readBenchSettings(run: Pick<Run, "params" | "result">): BenchSettings {
  const params = run.params;
  return {
    bot: str(params.bot) || (resultOf(run, "bench")?.bot ?? ""),
    repeats: num(params.repeats),
    mutantsPerOperator: num(params.mutants_per_operator),
    operators: Array.isArray(params.operators) ? strings(params.operators) : null,
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

function mutantStatus(value: unknown): MutantStatus | null {
  return MUTANT_STATUSES.find((status) => status === value) ?? null;
}
