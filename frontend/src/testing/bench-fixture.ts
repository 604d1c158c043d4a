/**
 * Test data: a finished bench on the bike bot, as the API serves its `bench` artefact (`BenchReport`, what
 * `backend/engine/evaluation/run.py::run_bench` writes; written by hand with the builders of `testing/bench.ts`,
 * trimmed: one mutant per status, TRACER's match list left out). Strings carry markup to prove they are shown as
 * text.
 */
import type { BenchReport, MutantResult } from "../api/bench/runs-bench";
import type { ResultOf, Run } from "../api/runs/runs";
import {
  benchConfig,
  benchReport,
  benchScores,
  benchUsage,
  botReport,
  controls as controlsOf,
  countingScores,
  coverage as coverageOf,
  falseAlarms,
  flagged,
  kill,
  mutantResult,
  mutation,
  overall,
  phaseUsage,
  provenance,
  rate,
  senseiFigures,
  tracerFigures,
} from "./bench";

const coverage = (module: number, input: number, value: number, question: number, conversations: number) =>
  coverageOf({
    conversations,
    module,
    input,
    value,
    question,
    counts: {
      modules: [Math.round((module / 100) * 3), 3],
      inputs: [Math.round((input / 100) * 3), 3],
      values: [Math.round((value / 100) * 2), 2],
      questions: [Math.round((question / 100) * 4), 4],
    },
  });

const mutants: MutantResult[] = [
  mutantResult({
    id: "crash-on-value-1",
    operator: "crash-on-value",
    description: "book_service.tables.base_price: entry 'tune-up' deleted (crashes on that value)",
    status: "killed",
    killed: true,
    killed_automatic: true,
    repeats: 2,
    conversations: 4,
    killing_conversations: 2,
    reasons: { crash: 2 },
    kills: [
      kill({
        signature: ["crash", "Booker", 1, ""],
        reason: "crash",
        kind: "automatic",
        mutant_count: 2,
        original_runs: 2,
        kills: true,
        evidence: "HTTP 500: The bot bike failed",
      }),
      kill({
        signature: ["missing_output", "Booker", 0, "price"],
        reason: "missing_output",
        kind: "automatic",
        mutant_count: 1,
        original_count: 1,
        original_runs: 2,
        evidence: "1 output(s) not found: price",
      }),
    ],
  }),
  mutantResult({
    id: "swap-qa-answers-1",
    operator: "swap-qa-answers",
    description: "bike_faq: answers of 'tire_price' and 'tune_up_price' swapped",
    status: "killed",
    killed: true,
    repeats: 2,
    conversations: 4,
    killing_conversations: 3,
    reasons: { failed_rule: 3 },
    rules: { faq_answers: 3 },
    kills: [
      kill({
        signature: ["failed_rule", "Curious rider", 0, "faq_answers"],
        reason: "failed_rule",
        kind: "oracle",
        mutant_count: 2,
        original_runs: 2,
        kills: true,
        evidence: "the condition is false",
      }),
    ],
  }),
  mutantResult({
    id: "delete-fallback-1",
    operator: "delete-fallback",
    description: "top: fallback deleted <b>(the stock fallback is said instead)</b>",
    status: "live",
    repeats: 2,
    conversations: 4,
  }),
  mutantResult({
    id: "wrong-language-1",
    operator: "wrong-language",
    description: "the bot's own sentences in 'es'",
    status: "inconclusive",
    error: "The LLM provider refused the request (429).",
  }),
  mutantResult({
    id: "change-optionality-1",
    operator: "change-optionality",
    description: "book_service.service: made optional",
    status: "stillborn",
    stillborn_reason:
      "bike mutant change-optionality-1: modules.book_service.compute.price: the formula needs slot 'service', which is optional; make it required",
  }),
];

const perOperator = {
  "change-optionality": { selected: 1, killed: 0, live: 0, stillborn: 1, inconclusive: 0 },
  "crash-on-value": { selected: 1, killed: 1, live: 0, stillborn: 0, inconclusive: 0 },
  "delete-fallback": { selected: 1, killed: 0, live: 1, stillborn: 0, inconclusive: 0 },
  "swap-qa-answers": { selected: 1, killed: 1, live: 0, stillborn: 0, inconclusive: 0 },
  "wrong-language": { selected: 1, killed: 0, live: 0, stillborn: 0, inconclusive: 1 },
};

const usage = phaseUsage({
  calls: 212,
  prompt_tokens: 118_400,
  completion_tokens: 3_210,
  cost_usd: 0.0197,
  wall_s: 41.2,
});

const score = (killed: number, scored: number, ci95: [number, number], perRepeat: number[] = []) =>
  countingScores({
    selected: 5,
    killed,
    live: scored - killed,
    inconclusive: 1,
    stillborn: 1,
    scored,
    score: Math.round((10_000 * killed) / scored) / 100,
    ci95,
    per_repeat: perRepeat,
  });

const scores = benchScores({
  automatic: score(1, 3, [6.15, 79.23], [33.33, 33.33]),
  with_oracles: score(2, 3, [20.77, 93.85], [66.67, 66.67]),
  thesis_rule: { automatic: score(2, 3, [20.77, 93.85]), with_oracles: score(3, 3, [43.85, 100]) },
});

const controls = controlsOf({
  runs: 1,
  automatic: rate({ scored: 1, rate: 0, ci95: [0, 79.35] }),
  with_oracles: rate({ scored: 1, rate: 0, ci95: [0, 79.35] }),
});

export const BENCH_JSON: BenchReport = benchReport({
  provenance: provenance({
    provider: "openai",
    model: "gpt-4o-mini",
    seed: 7,
    repeats: 2,
    parley_version: "0.1.0",
    matcher: "llm",
  }),
  scores,
  config: benchConfig({
    bots: ["bike"],
    sessions: 3,
    turns: 4,
    mutants_per_operator: 1,
    repeats: 2,
    seed: 7,
    today: "2026-11-22",
    provider: "openai",
    model: "gpt-4o-mini",
  }),
  bots: {
    bike: botReport({
      bot: "bike",
      name: "Spoke & Chain Cycles",
      sizes: { modules: 3, inputs: 3, values: 2, questions: 4 },
      tracer: tracerFigures({
        coverage: coverage(66.67, 33.33, 50, 25, 3),
        functionalities: 4,
        profiles: 2,
        valid_profiles: 2,
        warnings: ["The chatbot did not answer one message in time."],
        true_positives: 3,
        false_positives: 1,
        precision: 75,
        recall: 83.33,
        recall_modules: [3, 3],
        recall_inputs: [2, 3],
        missed_inputs: ["book_service.time"],
        matcher: "llm",
      }),
      profiles: [
        { name: "Booker", temperature: 0.7, model: "gpt-4o-mini", goals: 2, key: "Booker", out_of_range: {} },
        {
          name: "Curious rider",
          temperature: 0.7,
          model: "gpt-4o-mini",
          goals: 3,
          key: "Curious rider",
          out_of_range: {},
        },
      ],
      rules: [
        {
          name: "model_options_service",
          kind: "model",
          source: "automatic",
          description: "when the bot offers service options, it offers all the ones TRACER saw: repair, tune-up",
        },
        {
          name: "outputs_book_service",
          kind: "output",
          source: "oracle",
          description: "bike: the book_service response has the ground truth's shape and values, computed values",
        },
        {
          name: "faq_answers",
          kind: "faq",
          source: "oracle",
          description: "bike: a question naming one FAQ question gets that question's answer",
        },
        {
          name: "enum_options",
          kind: "enum",
          source: "oracle",
          description: "bike: the options offered for an enum slot are its <i>ground-truth</i> values",
        },
      ],
      sensei: senseiFigures({
        repeats: 2,
        conversations_per_run: 4,
        coverage: {
          aggregate: coverage(100, 100, 100, 75, 8),
          median: coverageOf({ module: 100, input: 66.67, value: 50, question: 50 }),
          runs: [coverage(100, 66.67, 50, 50, 4), coverage(100, 100, 100, 75, 4)],
        },
        false_alarms: falseAlarms({
          conversations: 8,
          false_alarms: 1,
          rate: 12.5,
          automatic: flagged({ flagged: 1, rate: 12.5, ci95: [2.24, 47.09] }),
          with_oracles: flagged({ flagged: 1, rate: 12.5, ci95: [2.24, 47.09] }),
          reasons: { unmet_goal: 1 },
        }),
      }),
      mutation: mutation({
        selected: 5,
        killed: 2,
        live: 1,
        stillborn: 1,
        inconclusive: 1,
        mutation_score: 66.67,
        kills_per_operator: perOperator,
        kills_per_reason: { crash: 1, failed_rule: 1 },
        live_mutants: [{ bot: null, id: "delete-fallback-1", description: mutants[2]?.description ?? "" }],
        stillborn_mutants: [{ bot: null, id: "change-optionality-1", reason: mutants[4]?.stillborn_reason ?? null }],
        inconclusive_mutants: [{ bot: null, id: "wrong-language-1", error: mutants[3]?.error ?? null }],
        mutants,
      }),
      scores,
      controls,
      usage: benchUsage({
        ...usage,
        phases: {
          tracer: phaseUsage({
            calls: 20,
            prompt_tokens: 9_000,
            completion_tokens: 1_200,
            cost_usd: 0.0021,
            wall_s: 8.1,
          }),
          sensei_original: phaseUsage({
            calls: 96,
            prompt_tokens: 54_000,
            completion_tokens: 1_000,
            cost_usd: 0.0088,
            wall_s: 15.5,
          }),
          sensei_mutants: phaseUsage({
            calls: 96,
            prompt_tokens: 55_400,
            completion_tokens: 1_010,
            cost_usd: 0.0088,
            wall_s: 17.6,
          }),
        },
      }),
    }),
  },
  overall: overall({
    bots: ["bike"],
    tracer_coverage_mean: coverageOf({ module: 66.67, input: 33.33, value: 50, question: 25 }),
    sensei_coverage_mean: coverageOf({ module: 100, input: 100, value: 100, question: 75 }),
    functionalities: 4,
    precision: 75,
    recall: 83.33,
    matcher: "llm",
    controls,
    false_alarms: falseAlarms({
      conversations: 8,
      false_alarms: 1,
      rate: 12.5,
      automatic: flagged({ rate: 0, ci95: [0, 32.44] }),
      with_oracles: flagged({ flagged: 1, rate: 12.5, ci95: [2.24, 47.09] }),
    }),
    mutation: mutation({
      selected: 5,
      killed: 2,
      live: 1,
      stillborn: 1,
      inconclusive: 1,
      mutation_score: 66.67,
      kills_per_operator: perOperator,
      kills_per_reason: { crash: 1, failed_rule: 1 },
      live_mutants: [{ bot: "bike", id: "delete-fallback-1", description: mutants[2]?.description ?? "" }],
    }),
    usage: benchUsage(usage),
    wall_s: 63.4,
  }),
  wall_s: 63.4,
});

export const BENCH_MD = `# Parley bench

Provider **openai**, model **gpt-4o-mini**, temperature **provider default**.

## Overall

| Figure | Value |
|---|---|
| Mutation score (%) | 66.67 |

<script>alert("x")</script>
`;

/** The run row of that bench, as `GET /api/runs/{id}/` returns it. */
export function benchRun(overrides: Partial<Run> = {}): Run {
  return {
    id: 41,
    kind: "bench",
    status: "succeeded",
    stage: "done",
    progress: { done: 5, total: 5 },
    counters: {},
    project: 7,
    project_name: "Bike shop",
    params: {
      bot: "bike",
      sessions: 3,
      turns: 4,
      repeats: 2,
      mutants_per_operator: 1,
      operators: null,
      concurrency: 4,
      seed: 7,
    },
    trigger_source: "api",
    result: {
      kind: "bench",
      ok: true,
      bot: "bike",
      mutation_score: 66.67,
      mutation_score_automatic: 33.33,
      mutation_score_thesis_rule: 100,
      mutants: 5,
      killed: 2,
      killed_automatic: 1,
      live: 1,
      stillborn: 1,
      inconclusive: 1,
      controls: 1,
      controls_killed: 0,
      precision: 75,
      recall: 83.33,
      matcher: "llm",
      false_alarm_rate: 12.5,
      false_alarm_rate_automatic: 12.5,
      usage: benchUsage(usage),
    } satisfies ResultOf<"bench">,
    usage: {
      calls: 212,
      prompt_tokens: 118_400,
      completion_tokens: 3_210,
      cost_usd: 0.0197,
      failed_calls: 0,
      unpriced_calls: 0,
    },
    cost_usd: 0.0197,
    error_type: "",
    error_message: "",
    created_at: "2026-11-22T09:00:00Z",
    started_at: "2026-11-22T09:00:01Z",
    finished_at: "2026-11-22T09:01:05Z",
    wait_seconds: 1,
    duration_seconds: 64,
    owner_name: "ada",
    is_owner: true,
    cancel_requested: false,
    ...overrides,
  };
}
