import { describe, expect, it } from "vitest";
import { counted } from "./text";

describe("counted", () => {
  it("writes the noun in the singular for exactly one, in the plural otherwise", () => {
    expect(counted(1, "problem")).toBe("1 problem");
    expect(counted(0, "problem")).toBe("0 problems");
    expect(counted(3, "problem")).toBe("3 problems");
    expect(counted(1, "functionality", "functionalities")).toBe("1 functionality");
    expect(counted(2, "functionality", "functionalities")).toBe("2 functionalities");
  });

  it("shows an unknown count as a dash", () => {
    expect(counted(null, "session")).toBe("— sessions");
  });
});
