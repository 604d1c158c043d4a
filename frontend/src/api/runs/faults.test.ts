import { describe, expect, it } from "vitest";
import { readFaultCounts, readVerdictProof } from "./faults";

describe("fault readers", () => {
  it("reads who is at fault and the evidence turn, the row before the record", () => {
    expect(readVerdictProof({ fault: "chatbot", evidence_turn: 3 }, { fault: "parley_llm" })).toEqual({
      fault: "chatbot",
      evidenceTurn: 3,
    });
    expect(readVerdictProof({ id: 1 }, { fault: "simulated_user", evidence_turn: null })).toEqual({
      fault: "simulated_user",
      evidenceTurn: null,
    });
  });

  it("shows no fault for old runs and for values it does not know", () => {
    expect(readVerdictProof({ id: 1, verdict: "failed" }, undefined)).toEqual({ fault: null, evidenceTurn: null });
    expect(readVerdictProof({ fault: "the_moon", evidence_turn: "3" })).toEqual({ fault: null, evidenceTurn: null });
    expect(readFaultCounts(undefined)).toBeNull();
  });

  it("reads fault counts in a fixed order, leaving out unknown names and zeros", () => {
    expect(readFaultCounts({ parley_llm: 1, the_moon: 4, simulated_user: 2, chatbot: 3, test_setup: 0 })).toEqual([
      ["chatbot", 3],
      ["simulated_user", 2],
      ["parley_llm", 1],
    ]);
  });
});
