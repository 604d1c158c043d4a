/**
 * Run results for tests, as the API serves them: every field present, at the default the server's model gives it
 * (`backend/runs/result_schema.py`), with the fields a test cares about overridden.
 */
import type { components } from "../api/schema";

type Schemas = components["schemas"];

export const usage: Schemas["UsageTotals"] = {
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  cost_usd: 0,
  failed_calls: 0,
  unpriced_calls: 0,
};

export function tracerResult(fields: Partial<Schemas["TracerSummary"]> = {}): Schemas["TracerSummary"] {
  return {
    kind: "tracer",
    source: "live",
    ok: true,
    functionalities: 0,
    profiles: 0,
    valid_profiles: 0,
    resumed: false,
    warnings: [],
    usage,
    transcripts: null,
    ...fields,
  };
}

/** Verdict counts of a run decided before verdicts existed (or of a kind without them). */
const undecided = {
  passed: null,
  failed: null,
  inconclusive: null,
  failed_reasons: {},
  inconclusive_reasons: {},
  faults: {},
  verdict_rules: null,
  simulator_slips: 0,
};

export function senseiResult(fields: Partial<Schemas["SenseiResult"]> = {}): Schemas["SenseiResult"] {
  return {
    kind: "sensei",
    ok: (fields.failed ?? 0) === 0,
    conversations: 0,
    with_errors: 0,
    ...undecided,
    reliability: [],
    warnings: [],
    models: {},
    replay: null,
    ...fields,
  };
}

export function checkResult(fields: Partial<Schemas["CheckRunSummary"]> = {}): Schemas["CheckRunSummary"] {
  return {
    kind: "check",
    ok: (fields.failed ?? 0) === 0 && (fields.error ?? 0) === 0,
    conversations: 0,
    rules: 0,
    passed: 0,
    failed: 0,
    error: 0,
    not_applicable: 0,
    ...fields,
  };
}

export function replaySavings(fields: Partial<Schemas["ReplaySavings"]> = {}): Schemas["ReplaySavings"] {
  return { source: null, calls_saved: 0, calls_made: 0, saved_by_tag: {}, made_by_tag: {}, ...fields };
}

export function rate(passed: number, decided: number): Schemas["ServedRate"] {
  return {
    passed,
    failed: decided - passed,
    decided,
    rate: decided > 0 ? passed / decided : null,
    low: 0,
    high: 1,
  };
}

export function profileReliability(
  fields: Partial<Schemas["ProfileReliabilityResult"]> = {},
): Schemas["ProfileReliabilityResult"] {
  return {
    profile: "",
    k: 1,
    planned: 0,
    counted: 0,
    pass_k: rate(0, 0),
    pass_at_1: rate(0, 0),
    repeats: 0,
    decided_repeats: 0,
    flaky: 0,
    min_pass_rate: null,
    conversations: [],
    ...fields,
  };
}

export function connectionTest(fields: Partial<Schemas["ConnectionTest"]> = {}): Schemas["ConnectionTest"] {
  return {
    kind: "connector_test",
    ok: true,
    technology: "",
    message_sent: "",
    greeting: null,
    reply: null,
    raw_excerpt: "",
    latency_s: 0,
    error_code: null,
    error_message: null,
    http_status: null,
    ...fields,
  };
}

export function botReply(messages: string[], buttons: string[] = []): Schemas["BotReply"] {
  return {
    messages,
    buttons: buttons.map((label) => ({ label, value: null, url: null })),
    raw: null,
    latency_s: 0,
    ended: false,
  };
}

const noBreach: Schemas["BreachRow"] = {
  attempts: 0,
  breached: 0,
  resisted: 0,
  inconclusive: 0,
  error: 0,
  breach_rate: null,
  interval: null,
};

/** A run's aggregates (`stats/`) as the server serves them; `kind` and whatever a test draws, overridden. */
export function runStatistics(fields: Partial<Schemas["RunStatistics"]> & { kind: string }): Schemas["RunStatistics"] {
  return {
    totals: noBreach,
    by_attack: [],
    by_delivery: [],
    by_attack_and_delivery: [],
    by_state: [],
    by_attack_and_state: [],
    cost_usd: null,
    usage,
    conversations: null,
    with_errors: null,
    ...undecided,
    errors_by_code: [],
    profiles: [],
    response_times: { count: 0, min: null, max: null, mean: null, median: null, p90: null, histogram: [] },
    rules: [],
    tracer_run: null,
    ...fields,
  };
}

/** A rule's report in a check run's results (`engine/check/report.py::RuleReport`). */
export function ruleReport(fields: Partial<Schemas["RuleReport"]> & { name: string }): Schemas["RuleReport"] {
  return {
    description: "",
    file: null,
    conversations: 1,
    ordered: false,
    checks: 0,
    passed: 0,
    failed: 0,
    not_applicable: 0,
    errors: 0,
    results: [],
    omitted: 0,
    not_applicable_reasons: {},
    warnings: [],
    duration_s: 0,
    ...fields,
  };
}

const noSettings: Schemas["RecordSettings"] = {
  styles: null,
  goal_style: null,
  max_user_turns: null,
  goals: null,
  seed: null,
  personality: null,
  user_model: null,
  judge_model: null,
  profile_model: null,
  temperature: null,
  connector: null,
  min_pass_rate: null,
  test_name: null,
  planned_index: null,
  repeat: null,
  repeats: null,
  imported_from: null,
  reference: null,
};

const noOutcome: Schemas["RecordOutcome"] = {
  stopped_because: null,
  ended_by: null,
  end_signal: null,
  fallback_replies: null,
  ended_on_fallback: null,
  simulator_slips: null,
  notes: null,
  languages: null,
  goals_verified: null,
  extraction_skipped: null,
  extraction_notes: null,
  llm_calls: null,
  script_turns: null,
  checks: null,
};

/** A chat turn as a record stores it; `buttons` by label. */
export function turn(role: "user" | "bot", text: string, fields: Partial<Schemas["Turn"]> = {}): Schemas["Turn"] {
  return { role, text, buttons: [], at_s: 0, latency_s: null, ...fields };
}

/** A stored conversation record (`ConversationRecord`); `settings` and `outcome` take the fields given. */
export function conversationRecord(
  fields: Partial<Omit<Schemas["ConversationRecord"], "settings" | "outcome">> & {
    settings?: Partial<Schemas["RecordSettings"]>;
    outcome?: Partial<Schemas["RecordOutcome"]>;
  } = {},
): Schemas["ConversationRecord"] {
  const { settings, outcome, ...rest } = fields;
  return {
    id: "r-0",
    profile: "order_pizza",
    index: 0,
    language: null,
    context: [],
    goals: [],
    inputs: {},
    outputs: {},
    evidence: {},
    turns: [],
    errors: [],
    started_at: null,
    duration_s: null,
    usage: { calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 },
    verdict: null,
    verdict_reason: null,
    fault: null,
    evidence_turn: null,
    verdict_rules: null,
    ...rest,
    settings: { ...noSettings, ...settings },
    outcome: { ...noOutcome, ...outcome },
  };
}
