import { describe, expect, it } from "vitest";
import { readFaultCounts } from "./faults";

describe("fault counts", () => {
  it("shows no fault counts for old runs", () => {
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
