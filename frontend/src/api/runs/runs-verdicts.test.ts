import { describe, expect, it } from "vitest";
import { readRunStats, readSenseiSummary } from "./runs-dashboard";
import { runStatistics, senseiResult } from "../../testing/results";

describe("SENSEI verdicts in the dashboards", () => {
  it("counts only failed conversations against the chatbot and keeps inconclusive ones apart with reasons", () => {
    const stats = readRunStats({
      ...runStatistics({ kind: "sensei" }),
      conversations: 5,
      with_errors: 4,
      passed: 1,
      failed: 1,
      inconclusive: 3,
      failed_reasons: { chatbot_crash: 1 },
      inconclusive_reasons: { inputs_not_conveyed: 2, rate_limited: 1 },
      simulator_slips: 7,
    });
    expect(stats.verdicts).toEqual({
      passed: 1,
      failed: 1,
      inconclusive: 3,
      failedReasons: [["chatbot_crash", 1]],
      inconclusiveReasons: [
        ["inputs_not_conveyed", 2],
        ["rate_limited", 1],
      ],
      // No conversation was at fault of anyone: no fault is listed.
      faults: [],
      simulatorSlips: 7,
    });
    // The pass rate leaves inconclusive conversations out: 1 passed of 2 conclusive.
    const run = {
      params: {},
      result: senseiResult({ conversations: 5, with_errors: 4, passed: 1, failed: 1, inconclusive: 3 }),
    };
    expect(readSenseiSummary(run).passRate).toBe(0.5);
  });

  it("reads who is at fault, in the stats and in the run's result", () => {
    const faults = { chatbot: 1, parley_llm: 2, simulated_user: 1 };
    const expected = [
      ["chatbot", 1],
      ["simulated_user", 1],
      ["parley_llm", 2],
    ];
    expect(
      readRunStats(runStatistics({ kind: "sensei", passed: 0, failed: 1, inconclusive: 3, faults })).verdicts?.faults,
    ).toEqual(expected);
    expect(
      readSenseiSummary({ params: {}, result: senseiResult({ passed: 0, failed: 1, inconclusive: 3, faults }) }).faults,
    ).toEqual(expected);
  });

  it("reads runs stored before verdicts as before", () => {
    expect(readRunStats(runStatistics({ kind: "sensei", conversations: 2, with_errors: 1 })).verdicts).toBeNull();
    expect(readSenseiSummary({ params: {}, result: senseiResult({ conversations: 4, with_errors: 1 }) }).passRate).toBe(
      0.75,
    );
  });
});
