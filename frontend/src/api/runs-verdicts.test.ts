import { describe, expect, it } from "vitest";
import { readRunStats, readSenseiSummary } from "./runs-dashboard";

describe("SENSEI verdicts in the dashboards", () => {
  it("counts only failed conversations against the chatbot and keeps inconclusive ones apart with reasons", () => {
    const stats = readRunStats({
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
      simulatorSlips: 7,
    });
    // The pass rate leaves inconclusive conversations out: 1 passed of 2 conclusive.
    const run = { params: {}, result: { conversations: 5, with_errors: 4, passed: 1, failed: 1, inconclusive: 3 } };
    expect(readSenseiSummary(run).passRate).toBe(0.5);
  });

  it("reads runs stored before verdicts as before", () => {
    expect(readRunStats({ conversations: 2, with_errors: 1 }).verdicts).toBeNull();
    expect(readSenseiSummary({ params: {}, result: { conversations: 4, with_errors: 1 } }).passRate).toBe(0.75);
  });
});
