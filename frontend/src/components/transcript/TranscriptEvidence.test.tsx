import { MantineProvider } from "@mantine/core";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Decision } from "../../api/runs/conversations";
import { conversationRecord, turn } from "../../testing/results";
import { Transcript } from "./Transcript";

// A record as SENSEI stores it: a verdict, and per output the chatbot's words that state it or why it is missing.
const RECORD = conversationRecord({
  outputs: { price: { amount: 21, currency: "USD" }, order_id: null, total: null },
  evidence: {
    price: { turn: 3, quote: "The total is 21$.<script>x()</script>", reason: null },
    order_id: { turn: null, quote: null, reason: "no_evidence" },
    total: { turn: 5, quote: "It starts at 35$.", reason: "doubtful" },
  },
});
const DECISION: Decision = {
  verdict: "inconclusive",
  verdict_reason: "inputs_not_conveyed: the simulated user never said the inputs of goal 1 (size=small)",
  fault: null,
  evidence_turn: null,
};

describe("Transcript: verdict and evidence", () => {
  it("shows the verdict with its reason and the chatbot's words beside each output", () => {
    render(
      <MantineProvider>
        <Transcript record={RECORD} decision={DECISION} />
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

// A failed conversation as the API serves it since verdicts with proof: who is at fault and the chatbot turn.
const TURNS = [
  turn("user", "A small margherita, please."),
  turn("bot", "Which size?"),
  turn("user", "Small."),
  turn("bot", "Error: size not understood."),
];

function renderRecord(decision: Decision) {
  return render(
    <MantineProvider>
      <Transcript record={conversationRecord({ turns: TURNS })} decision={decision} />
    </MantineProvider>,
  );
}

describe("Transcript: who is at fault", () => {
  it("says the chatbot is at fault and links to its turn, highlighted in the transcript", async () => {
    renderRecord({
      verdict: "failed",
      verdict_reason: "ignored_input: the chatbot ignored the size the user gave",
      fault: "chatbot",
      evidence_turn: 3,
    });
    const verdict = screen.getByRole("region", { name: "Verdict" });
    expect(verdict).toHaveTextContent("At fault: Chatbot");
    const link = within(verdict).getByRole("link", { name: "turn 4" });

    // The same number as the transcript shows, on the chatbot's message that proves it.
    const transcript = screen.getByRole("list", { name: "Transcript" });
    const evidence = within(transcript).getByRole("listitem", { name: "Chatbot, turn 4, the evidence" });
    expect(evidence).toHaveTextContent("Error: size not understood.");
    expect(evidence).toHaveTextContent("turn 4");
    expect(within(transcript).getAllByRole("listitem", { name: /evidence/ })).toHaveLength(1);

    await userEvent.click(link);
    expect(within(evidence).getByTestId("turn-bubble")).toHaveFocus();
  });

  it("names who else is at fault for an inconclusive conversation, in plain words", () => {
    renderRecord({
      verdict: "inconclusive",
      verdict_reason: "user_left_role: the simulated user answered as the bot",
      fault: "simulated_user",
      evidence_turn: null,
    });
    const verdict = screen.getByRole("region", { name: "Verdict" });
    expect(verdict).toHaveTextContent("At fault: Simulated user");
    expect(within(verdict).queryByRole("link")).toBeNull();
  });

  it("shows no fault for conversations stored before verdicts with proof", () => {
    renderRecord({
      verdict: "failed",
      verdict_reason: "goal_not_completed: no price",
      fault: null,
      evidence_turn: null,
    });
    expect(screen.getByRole("region", { name: "Verdict" })).not.toHaveTextContent("At fault");
    expect(screen.queryByRole("listitem", { name: /evidence/ })).toBeNull();
  });
});
