import { MantineProvider } from "@mantine/core";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { conversationRecord, turn } from "../../testing/results";
import { safeLinkUrl, Transcript } from "./Transcript";

const SCRIPT = `<script>window.__pwned = true</script>`;
const IMG = `<img src=x onerror="window.__pwned = true">`;

// A record as the server stores it, from a hostile chatbot.
const RECORD = conversationRecord({
  id: "ab12cd34-order_pizza-0",
  profile: "order_pizza",
  inputs: { size: "<b>large</b>", toppings: ["ham", "cheese"] },
  outputs: { price: null, order_id: "<img src=y onerror=alert(2)>" },
  settings: { goal_style: { kind: "steps" } },
  turns: [
    { role: "user", text: "I want a pizza", buttons: [], at_s: 1, latency_s: null },
    {
      role: "bot",
      text: `Here you go ${SCRIPT} and ${IMG}`,
      buttons: [
        { label: "Menu", value: "menu", url: null },
        { label: "<i>Evil</i>", value: null, url: "javascript:alert(1)" },
        { label: "Website", value: null, url: "https://pizza.example/menu" },
      ],
      at_s: 2,
      latency_s: 0.42,
    },
  ],
  errors: [{ code: 1001, name: "goal_not_completed", message: "<script>x()</script> output price not found", turn: 1 }],
  duration_s: 3.5,
  usage: { calls: 2, prompt_tokens: 10, completion_tokens: 5, cost_usd: 0.001 },
});

function renderTranscript() {
  return render(
    <MantineProvider>
      <Transcript record={RECORD} decision={null} />
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

// Markdown from a hostile chatbot: formatting that should show, and every trick that must not work.
const MARKDOWN_REPLY = [
  "Your **large** pizza is _ready_.",
  "",
  "- [Track it](https://pizza.example/track)",
  "- [Free pizza](javascript:alert(document.cookie))",
  "- [Click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  '- <a href="javascript:alert(2)">raw link</a>',
  "",
  "![tracking pixel](https://evil.example/pixel.png?who=you)",
  "",
  '<iframe src="https://evil.example"></iframe><script>window.__pwned = true</script>',
  '<img src=x onerror="window.__pwned = true">',
].join("\n");

function renderReply(text: string) {
  const record = conversationRecord({ turns: [turn("user", "Is it **ready**?"), turn("bot", text)] });
  return render(
    <MantineProvider>
      <Transcript record={record} decision={null} />
    </MantineProvider>,
  );
}

describe("Markdown in chatbot replies", () => {
  it("renders the formatting and http(s) links, and never HTML, scripts, other schemes or remote images", () => {
    const { container } = renderReply(MARKDOWN_REPLY);
    const bot = within(screen.getByRole("list", { name: "Transcript" })).getByRole("listitem", {
      name: /^Chatbot, turn/,
    });

    expect(within(bot).getByText("large").tagName).toBe("STRONG");
    expect(within(bot).getByText("ready").tagName).toBe("EM");
    const links = within(bot).getAllByRole("link");
    expect(links.map((link) => link.textContent)).toEqual(["Track it"]);
    expect(links[0]).toHaveAttribute("href", "https://pizza.example/track");
    expect(links[0]).toHaveAttribute("target", "_blank");
    expect(links[0]?.getAttribute("rel")?.split(" ")).toEqual(
      expect.arrayContaining(["noopener", "noreferrer", "nofollow"]),
    );
    // The other link texts stay, without a target.
    expect(within(bot).getByText("Free pizza").closest("a")).toBeNull();
    expect(within(bot).getByText("Click").closest("a")).toBeNull();

    expect(container.querySelector('[href^="javascript"], [href^="data"], [src]')).toBeNull();
    expect(container.querySelector("script, iframe, img, [onerror]")).toBeNull();
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();
    // HTML is shown as the text the chatbot sent; the image as its description and address, not loaded.
    expect(bot).toHaveTextContent('<a href="javascript:alert(2)">raw link</a>');
    expect(bot).toHaveTextContent("<script>window.__pwned = true</script>");
    expect(bot).toHaveTextContent("[image: tracking pixel — https://evil.example/pixel.png?who=you]");

    // The simulated user's message is shown as written.
    const user = within(screen.getByRole("list", { name: "Transcript" })).getByRole("listitem", {
      name: /^Simulated user, turn/,
    });
    expect(user).toHaveTextContent("Is it **ready**?");
  });

  it("shows exactly what was received with the raw toggle", async () => {
    renderReply(MARKDOWN_REPLY);
    await userEvent.click(screen.getByRole("radio", { name: "Raw text" }));
    const bot = within(screen.getByRole("list", { name: "Transcript" })).getByRole("listitem", {
      name: /^Chatbot, turn/,
    });
    expect(within(bot).getByTestId("turn-text").textContent).toBe(MARKDOWN_REPLY);
    expect(within(bot).queryByRole("link")).toBeNull();
    expect(bot.querySelector("strong")).toBeNull();
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
