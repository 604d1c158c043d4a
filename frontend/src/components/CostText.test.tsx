import { MantineProvider } from "@mantine/core";
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CostText, describeCost } from "./CostText";

describe("costs", () => {
  it("never shows $0.0000 for calls of models without a price", () => {
    expect(describeCost(0, 3).text).toBe("not priced");
    expect(describeCost(null, true).text).toBe("not priced");
    expect(describeCost(0, 3).note).toMatch(/3 LLM calls used a model without a known price/);
    // Part priced, part not: the amount is a lower bound.
    expect(describeCost(0.0123, 1)).toMatchObject({ text: "≥ $0.0123" });
    // Priced (even free) calls are shown as they are.
    expect(describeCost(0, 0)).toEqual({ text: "$0.0000", note: "" });
    expect(describeCost(2.5)).toEqual({ text: "$2.50", note: "" });
    expect(describeCost(null)).toEqual({ text: "—", note: "" });
  });

  it("explains an unpriced cost to the keyboard and screen readers too", () => {
    render(
      <MantineProvider>
        <CostText usd={0} unpriced={2} prefix="Cost " />
      </MantineProvider>,
    );
    expect(screen.getByText("Cost not priced")).toBeInTheDocument();
    expect(screen.queryByText(/\$0\.0000/)).toBeNull();
    const explained = screen.getByLabelText(/^Cost not priced: 2 LLM calls used a model without a known price/);
    expect(explained).toHaveAttribute("tabindex", "0");
  });
});
