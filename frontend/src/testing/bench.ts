/**
 * A bench's report (bench.json, the `bench` artefact) for tests, as the API serves it: every field present, at the
 * default the engine's model gives it (`backend/engine/evaluation/bench_report.py`), with the fields a test cares
 * about overridden. The compiler checks every fixture built here against the generated schema.
 */
import type { components } from "../api/schema";

type Schemas = components["schemas"];

export function phaseUsage(fields: Partial<Schemas["PhaseUsage"]> = {}): Schemas["PhaseUsage"] {
  return {
    calls: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cost_usd: 0,
    failed_calls: 0,
    unpriced_calls: 0,
    wall_s: 0,
    ...fields,
  };
}

export function benchUsage(fields: Partial<Schemas["BenchUsage"]> = {}): Schemas["BenchUsage"] {
  return { ...phaseUsage(), phases: {}, ...fields };
}

/** Coverage in percent per dimension; `counts` and `conversations` only where the engine writes them. */
export function coverage(fields: Partial<Schemas["GroundTruthCoverage"]> = {}): Schemas["GroundTruthCoverage"] {
  return { module: null, input: null, value: null, question: null, conversations: null, counts: null, ...fields };
}

export function killRate(fields: Partial<Schemas["KillRate"]> = {}): Schemas["KillRate"] {
  return {
    selected: 0,
    killed: 0,
    live: 0,
    inconclusive: 0,
    stillborn: 0,
    scored: 0,
    score: null,
    ci95: null,
    per_repeat: [],
    ...fields,
  };
}

export function countingScores(fields: Partial<Schemas["CountingScores"]> = {}): Schemas["CountingScores"] {
  return {
    ...killRate(),
    controls: null,
    overlaps_controls: null,
    note: null,
    per_bot: {},
    per_operator: {},
    ...fields,
  };
}

export function benchScores(fields: Partial<Schemas["BenchScores"]> = {}): Schemas["BenchScores"] {
  return {
    automatic: countingScores(),
    with_oracles: countingScores(),
    thesis_rule: { automatic: countingScores(), with_oracles: countingScores() },
    ...fields,
  };
}

export function rate(fields: Partial<Schemas["ControlRate"]> = {}): Schemas["ControlRate"] {
  return { killed: 0, scored: 0, rate: null, ci95: null, ...fields };
}

export function controls(fields: Partial<Schemas["ControlRuns"]> = {}): Schemas["ControlRuns"] {
  return { runs: 0, automatic: rate(), with_oracles: rate(), outcomes: [], ...fields };
}

export function flagged(fields: Partial<Schemas["FlaggedRate"]> = {}): Schemas["FlaggedRate"] {
  return { flagged: 0, rate: null, ci95: null, ...fields };
}

export function falseAlarms(fields: Partial<Schemas["FalseAlarms"]> = {}): Schemas["FalseAlarms"] {
  return {
    runs: 0,
    conversations: 0,
    inconclusive: 0,
    out_of_range_excused: 0,
    automatic: flagged(),
    with_oracles: flagged(),
    false_alarms: 0,
    rate: null,
    reasons: {},
    rules: {},
    signatures: [],
    ...fields,
  };
}

export function kill(fields: Partial<Schemas["MutantKill"]> = {}): Schemas["MutantKill"] {
  return {
    signature: [],
    reason: "",
    kind: "",
    mutant_count: 0,
    original_count: 0,
    original_runs: 0,
    mutant_runs: 0,
    kills: false,
    evidence: "",
    ...fields,
  };
}

export function mutantResult(fields: Partial<Schemas["MutantResult"]> = {}): Schemas["MutantResult"] {
  return {
    id: "",
    operator: "",
    description: "",
    status: "inconclusive",
    killed: false,
    killed_automatic: false,
    thesis_rule: { automatic: false, with_oracles: false },
    statuses: {},
    repeats: 0,
    kill_repeats: {},
    conversations: 0,
    inconclusive_conversations: 0,
    killing_conversations: 0,
    reasons: {},
    rules: {},
    kills: [],
    stillborn_reason: null,
    error: null,
    ...fields,
  };
}

export function mutation(fields: Partial<Schemas["MutationFigures"]> = {}): Schemas["MutationFigures"] {
  return {
    selected: 0,
    killed: 0,
    live: 0,
    stillborn: 0,
    inconclusive: 0,
    mutation_score: null,
    ci95: null,
    kills_per_operator: {},
    kills_per_reason: {},
    live_mutants: [],
    stillborn_mutants: [],
    inconclusive_mutants: [],
    mutants: [],
    ...fields,
  };
}

export function tracerFigures(fields: Partial<Schemas["TracerFigures"]> = {}): Schemas["TracerFigures"] {
  return {
    coverage: null,
    functionalities: 0,
    profiles: 0,
    valid_profiles: 0,
    warnings: [],
    languages: [],
    fallback: null,
    matcher: "",
    matcher_note: null,
    true_positives: 0,
    false_positives: 0,
    duplicates: 0,
    not_real: 0,
    precision: null,
    recall: null,
    recall_modules: [],
    recall_inputs: [],
    missed_modules: [],
    missed_inputs: [],
    matches: [],
    ...fields,
  };
}

export function senseiFigures(fields: Partial<Schemas["SenseiFigures"]> = {}): Schemas["SenseiFigures"] {
  return {
    repeats: 0,
    conversations_per_run: 0,
    coverage: { aggregate: null, median: null, runs: [] },
    false_alarms: falseAlarms(),
    ...fields,
  };
}

export function botReport(fields: Partial<Schemas["BotReport"]> & { bot: string }): Schemas["BotReport"] {
  return {
    name: fields.bot,
    sizes: { modules: 0, inputs: 0, values: 0, questions: 0 },
    tracer: tracerFigures(),
    profiles: [],
    rules: [],
    sensei: senseiFigures(),
    mutation: mutation(),
    scores: benchScores(),
    controls: controls(),
    usage: benchUsage(),
    ...fields,
  };
}

export function benchConfig(fields: Partial<Schemas["BenchConfig"]> = {}): Schemas["BenchConfig"] {
  return {
    bots: [],
    sessions: 10,
    turns: 8,
    mutants_per_operator: 2,
    operators: null,
    mutants: null,
    repeats: 3,
    controls: 3,
    profiles: null,
    conversations_per_profile: null,
    max_user_turns: null,
    max_profiles: null,
    separate_judge: false,
    concurrency: 4,
    seed: 0,
    today: null,
    output_dir: null,
    matcher: "llm",
    provider: null,
    model: null,
    temperature: null,
    llm_note: null,
    ...fields,
  };
}

export function provenance(fields: Partial<Schemas["BenchProvenance"]> = {}): Schemas["BenchProvenance"] {
  return {
    provider: null,
    model: null,
    temperature: null,
    seed: 0,
    repeats: 0,
    parley_version: "",
    llm_note: null,
    matcher: "",
    counting: "",
    ...fields,
  };
}

export function overall(fields: Partial<Schemas["OverallFigures"]> = {}): Schemas["OverallFigures"] {
  return {
    bots: [],
    tracer_coverage_mean: null,
    sensei_coverage_mean: null,
    functionalities: 0,
    precision: null,
    recall: null,
    matcher: "",
    false_alarms: falseAlarms(),
    controls: controls(),
    mutation: mutation(),
    usage: benchUsage(),
    wall_s: 0,
    ...fields,
  };
}

export function benchReport(fields: Partial<Schemas["BenchReport"]> = {}): Schemas["BenchReport"] {
  return {
    provenance: provenance(),
    config: benchConfig(),
    scores: benchScores(),
    bots: {},
    overall: overall(),
    wall_s: 0,
    thesis: null,
    ...fields,
  };
}
