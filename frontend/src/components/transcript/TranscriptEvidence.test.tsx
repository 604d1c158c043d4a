import { MantineProvider } from "@mantine/core";
import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { readConversationRecord } from "../../api/conversations";
import { Transcript } from "./Transcript";

// A record as SENSEI stores it: a verdict, and per output the chatbot's words that state it or why it is missing.
const RECORD = readConversationRecord({
  id: "ab12cd34-order_pizza-0",
  profile: "order_pizza",
  verdict: "inconclusive",
  verdict_reason: "inputs_not_conveyed: the simulated user never said the inputs of goal 1 (size=small)",
  outputs: { price: { amount: 21, currency: "USD" }, order_id: null, total: null },
  evidence: {
    price: { turn: 3, quote: "The total is 21$.<script>x()</script>", reason: null },
    order_id: { turn: null, quote: null, reason: "no_evidence" },
    total: { turn: 5, quote: "It starts at 35$.", reason: "doubtful" },
  },
  turns: [],
  errors: [],
});

describe("Transcript: verdict and evidence", () => {
  it("shows the verdict with its reason and the chatbot's words beside each output", () => {
    render(
      <MantineProvider>
        <Transcript record={RECORD} />
      </MantineProvider>,
    );
    const verdict = screen.getByRole("region", { name: "Verdict" });
    expect(within(verdict).getByText("inconclusive")).toBeInTheDocument();
    expect(within(verdict).getByText(/inputs_not_conveyed/)).toBeInTheDocument();
    const outputs = screen.getByRole("table", { name: "Extracted outputs" });
    const price = within(outputs).getByText("price").closest("tr");
    expect(price).not.toBeNull();
    // The quote is text, never markup, with the turn as the transcript numbers it (from 1).
    expect(within(price as HTMLElement).getByTestId("output-quote")).toHaveTextContent(
      "“The total is 21$.<script>x()</script>” (turn 4)",
    );
    expect(within(outputs).getByText("— (no evidence)")).toBeInTheDocument();
    expect(within(outputs).getByText("“It starts at 35$.” (turn 6)")).toBeInTheDocument();
    expect(document.querySelector("script")).toBeNull();
  });
});
