import { describe, expect, it } from "vitest";
import { benchBotOf, readBench, readMutantEvents } from "./runs-bench";

describe("readBench", () => {
  it("puts reasons, operators and phases back in order (jsonb reorders object keys)", () => {
    const data = readBench({
      config: { bots: ["bike"], model: "m", provider: "openai", temperature: 0.2 },
      bots: {
        bike: {
          mutation: {
            kills_per_reason: { failed_rule: 2, crash: 1, loop: 3 },
            kills_per_operator: { "wrong-language": { selected: 1 }, "crash-on-value": { selected: 2, killed: 2 } },
            mutants: [{ id: "m-1", status: "killed", reasons: { wrong_output: 1, crash: 4 }, rules: { b: 1, a: 2 } }],
          },
          usage: { phases: { sensei_mutants: { calls: 3 }, tracer: { calls: 1 }, sensei_original: { calls: 2 } } },
        },
      },
    });
    const bot = data.bots[0];
    expect(bot?.mutation.perReason).toEqual([
      ["crash", 1],
      ["loop", 3],
      ["failed_rule", 2],
    ]);
    expect(bot?.mutation.perOperator.map((row) => row.operator)).toEqual(["crash-on-value", "wrong-language"]);
    expect(bot?.mutation.perOperator[1]).toMatchObject({ selected: 1, killed: 0, live: 0 });
    expect(bot?.mutants[0]?.reasons).toEqual([
      ["crash", 4],
      ["wrong_output", 1],
    ]);
    expect(bot?.mutants[0]?.rules.map(([rule]) => rule)).toEqual(["a", "b"]);
    expect(bot?.phases.map((row) => row.phase)).toEqual(["tracer", "sensei_original", "sensei_mutants"]);
    expect(data.config.temperature).toBe(0.2);
  });

  it("reads the differential kills and the scores counted three ways", () => {
    const data = readBench({
      provenance: { parley_version: "0.1.0", llm_note: "fake LLM" },
      scores: {
        automatic: { killed: 1, scored: 4, score: 25, ci95: [4.56, 69.94] },
        with_oracles: { killed: 3, scored: 4, score: 75 },
        thesis_rule: { with_oracles: { killed: 4, scored: 4, score: 100 } },
      },
      bots: {
        bike: {
          mutation: {
            mutants: [
              {
                id: "m-1",
                status: "killed",
                killed_automatic: false,
                repeats: 3,
                kills: [
                  { signature: ["failed_rule", "p", 2, "faq_answers"], mutant_count: 2, original_count: 0, kills: true },
                  { signature: ["loop", "p", 0, ""], mutant_count: 3, original_count: 3, kills: false },
                  { signature: "broken" },
                ],
              },
            ],
          },
        },
      },
    });
    expect(data.scores.automatic).toEqual({ killed: 1, scored: 4, score: 25, ci95: [4.56, 69.94] });
    expect(data.scores.withOracles.ci95).toBeNull();
    expect(data.scores.thesisWithOracles.score).toBe(100);
    expect(data.scores.thesisAutomatic.score).toBeNull();
    expect(data.config.llmNote).toBe("fake LLM");
    const mutant = data.bots[0]?.mutants[0];
    expect(mutant?.killedAutomatic).toBe(false);
    expect(mutant?.kills.map((kill) => [kill.signature, kill.kills])).toEqual([
      [["failed_rule", "p", 2, "faq_answers"], true],
      [["loop", "p", 0, ""], false],
      [["", "", null, ""], false],
    ]);
  });

  it("shows what is missing or malformed as missing", () => {
    const data = readBench({
      config: "no",
      bots: { pizza: { tracer: { precision: "100" }, mutation: { mutants: [7] } } },
    });
    expect(data.config.model).toBe("");
    expect(data.config.temperature).toBeNull();
    expect(data.bots[0]?.tracer.precision).toBeNull();
    expect(data.bots[0]?.mutants).toEqual([]);
    expect(data.overall.mutation.score).toBeNull();
    expect(readBench(null).bots).toEqual([]);
  });
});

describe("the bench's helpers", () => {
  it("accepts only an original built-in bot", () => {
    expect(benchBotOf({ technology: "demo", params: { bot: "pizza" } })).toBe("pizza");
    expect(benchBotOf({ technology: "demo", params: { bot: "pizza@repeat-loop-1" } })).toBeNull();
    expect(benchBotOf({ technology: "http", params: { bot: "pizza" } })).toBeNull();
    expect(benchBotOf(undefined)).toBeNull();
  });

  it("keeps the latest outcome of each mutant from the progress events", () => {
    const event = (id: number, data: Record<string, unknown>) => ({
      id,
      type: "progress" as const,
      created_at: "2026-11-22T09:00:00Z",
      data,
    });
    const rows = readMutantEvents([
      event(1, { mutant: "a-1", operator: "a", status: "live", reasons: [], done: 1, total: 2 }),
      { id: 2, type: "stage", created_at: "2026-11-22T09:00:00Z", data: { stage: "bike: mutants (2)" } },
      event(3, { mutant: "b-1", operator: "b", status: "killed", reasons: ["crash"], done: 2, total: 2 }),
      event(4, { done: 2, total: 2 }),
    ]);
    expect(rows).toEqual([
      { mutant: "a-1", operator: "a", status: "live", reasons: [], done: 1, total: 2 },
      { mutant: "b-1", operator: "b", status: "killed", reasons: ["crash"], done: 2, total: 2 },
    ]);
  });
});
