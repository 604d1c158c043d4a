import { describe, expect, it } from "vitest";
import { benchReport, botReport, benchConfig, benchUsage, mutation, phaseUsage } from "../../testing/bench";
import {
  benchBotOf,
  benchBots,
  KILL_REASONS,
  operatorRows,
  orderedCounts,
  phasesOf,
  readMutantEvents,
} from "./runs-bench";

describe("the bench report in the engine's order (jsonb reorders object keys)", () => {
  const report = benchReport({
    config: benchConfig({ bots: ["pizza", "bike"] }),
    bots: {
      bike: botReport({
        bot: "bike",
        usage: benchUsage({
          phases: { sensei_mutants: phaseUsage({ calls: 3 }), tracer: phaseUsage({ calls: 1 }), judge: phaseUsage() },
        }),
      }),
      pizza: botReport({ bot: "pizza" }),
    },
    overall: {
      ...benchReport().overall,
      mutation: mutation({
        kills_per_operator: {
          "wrong-language": { selected: 1, killed: 0, live: 1, stillborn: 0, inconclusive: 0 },
          "crash-on-value": { selected: 2, killed: 2, live: 0, stillborn: 0, inconclusive: 0 },
        },
      }),
    },
  });

  it("lists the bots as the bench ran them, and a bot's phases as they run", () => {
    const bots = benchBots(report);
    expect(bots.map((bot) => bot.bot)).toEqual(["pizza", "bike"]);
    expect(bots[1] && phasesOf(bots[1]).map((row) => row.phase)).toEqual(["tracer", "judge", "sensei_mutants"]);
  });

  it("lists operators alphabetically and reasons in the engine's order", () => {
    expect(operatorRows(report).map((row) => [row.operator, row.killed])).toEqual([
      ["crash-on-value", 2],
      ["wrong-language", 0],
    ]);
    expect(orderedCounts({ failed_rule: 2, crash: 1, loop: 3 }, KILL_REASONS)).toEqual([
      ["crash", 1],
      ["loop", 3],
      ["failed_rule", 2],
    ]);
    expect(orderedCounts({ b: 1, a: 2 })).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
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
