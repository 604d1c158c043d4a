import { describe, expect, it } from "vitest";
import { checkPassRate, senseiPassRate } from "./runs-dashboard";
import { inconclusiveFaults } from "../../components/Verdicts";
import { checkResult, senseiResult } from "../../testing/results";

describe("SENSEI verdicts in the dashboards", () => {
  it("leaves inconclusive conversations out of the pass rate", () => {
    const result = senseiResult({ conversations: 5, with_errors: 4, passed: 1, failed: 1, inconclusive: 3 });
    expect(senseiPassRate(result)).toBe(0.5);
    expect(senseiPassRate(senseiResult({ conversations: 3, passed: 0, failed: 0, inconclusive: 3 }))).toBeNull();
    expect(senseiPassRate(null)).toBeNull();
  });

  it("names who is at fault for the inconclusive ones, in the order a QA engineer reads them", () => {
    expect(inconclusiveFaults({ parley_llm: 2, chatbot: 1, simulated_user: 1, the_moon: 4, test_setup: 0 })).toBe(
      "Simulated user 1 · Parley's model 2",
    );
  });

  it("reads runs stored before verdicts as before", () => {
    expect(senseiPassRate(senseiResult({ conversations: 4, with_errors: 1 }))).toBe(0.75);
  });

  it("rates a check run's rules over those that decided something", () => {
    expect(checkPassRate(checkResult({ passed: 3, error: 1, not_applicable: 5 }))).toBe(0.75);
    expect(checkPassRate(checkResult({ not_applicable: 4 }))).toBeNull();
  });
});
