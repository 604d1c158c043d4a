import { MantineProvider } from "@mantine/core";
import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { readConversationRecord } from "../../api/conversations";
import { safeLinkUrl, Transcript } from "./Transcript";

const SCRIPT = `<script>window.__pwned = true</script>`;
const IMG = `<img src=x onerror="window.__pwned = true">`;

// A record as the server stores it, from a hostile chatbot.
const RECORD = readConversationRecord({
  id: "ab12cd34-order_pizza-0",
  profile: "order_pizza",
  inputs: { size: "<b>large</b>", toppings: ["ham", "cheese"] },
  outputs: { price: null, order_id: "<img src=y onerror=alert(2)>" },
  settings: { goal_style: "steps" },
  turns: [
    { role: "user", text: "I want a pizza", buttons: [], at_s: 1, latency_s: null },
    {
      role: "bot",
      text: `Here you go ${SCRIPT} and ${IMG}`,
      buttons: [
        { label: "Menu", value: "menu", url: "" },
        { label: "<i>Evil</i>", value: "", url: "javascript:alert(1)" },
        { label: "Website", value: "", url: "https://pizza.example/menu" },
      ],
      at_s: 2,
      latency_s: 0.42,
    },
  ],
  errors: [{ code: 1001, message: "<script>x()</script> output price not found", turn: 1 }],
  duration_s: 3.5,
  usage: { calls: 2, prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.001 },
});

function renderTranscript() {
  return render(
    <MantineProvider>
      <Transcript record={RECORD} />
    </MantineProvider>,
  );
}

describe("Transcript", () => {
  it("renders a chatbot's <script> and <img onerror> as text, never as elements", () => {
    const { container } = renderTranscript();

    const transcript = screen.getByRole("list", { name: "Transcript" });
    const botTurn = within(transcript).getByText(/Here you go/);
    expect(botTurn.textContent).toBe(`Here you go ${SCRIPT} and ${IMG}`);
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("[onerror]")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();

    // Values and error messages are text too.
    expect(screen.getByText("<b>large</b>")).toBeInTheDocument();
    expect(screen.getByText("<img src=y onerror=alert(2)>")).toBeInTheDocument();
    expect(screen.getAllByText(/<script>x\(\)<\/script> output price not found/).length).toBeGreaterThan(0);
  });

  it("shows buttons as buttons and only http(s) links as links", () => {
    const { container } = renderTranscript();
    const offered = screen.getByRole("group", { name: "Buttons offered" });
    expect(within(offered).getByText("Menu")).toBeInTheDocument();
    expect(within(offered).getByText("<i>Evil</i>")).toBeInTheDocument();
    expect(container.querySelector("i")).toBeNull();

    const links = within(offered).getAllByRole("link");
    expect(links).toHaveLength(1);
    expect(links[0]).toHaveAttribute("href", "https://pizza.example/menu");
    expect(links[0]).toHaveAttribute("rel", "noopener noreferrer nofollow");
    expect(container.querySelector('[href^="javascript"]')).toBeNull();
  });

  it("lists variable values, extracted outputs (missing ones marked) and errors by code", () => {
    renderTranscript();
    const variables = screen.getByRole("table", { name: "Variable values" });
    expect(within(variables).getByText('["ham","cheese"]')).toBeInTheDocument();
    const outputs = screen.getByRole("table", { name: "Extracted outputs" });
    expect(within(outputs).getByText("—")).toBeInTheDocument();
    expect(
      within(screen.getByRole("region", { name: "Errors" })).getByText("1001 goal_not_completed"),
    ).toBeInTheDocument();
  });
});

describe("safeLinkUrl", () => {
  it("keeps http(s) URLs and refuses every other scheme", () => {
    expect(safeLinkUrl("https://a.example/x")).toBe("https://a.example/x");
    expect(safeLinkUrl("http://a.example")).toBe("http://a.example/");
    for (const bad of [
      "javascript:alert(1)",
      " JaVaScRiPt:alert(1)",
      "data:text/html,<script>",
      "vbscript:x",
      "/relative",
      "",
    ]) {
      expect(safeLinkUrl(bad)).toBeNull();
    }
  });
});
