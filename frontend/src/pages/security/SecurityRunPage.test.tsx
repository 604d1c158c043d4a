import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { highlightQuotes } from "../../api/security/security";
import { graphNode, START, workflowGraph } from "../../testing/graph";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { ATTEMPTS, campaignRun, HOSTILE, QUOTE, STATS } from "../../testing/security-fixture";

const state = (name: string, breached: number, resisted: number, inconclusive = 0) => ({
  state: name,
  attempts: breached + resisted + inconclusive,
  breached,
  resisted,
  inconclusive,
  error: 0,
  breach_rate: breached + resisted ? breached / (breached + resisted) : null,
  interval: breached + resisted ? [breached ? 0.61 : 0, breached ? 1 : 0.39] : null,
});
const FROM_STATES = {
  ...STATS,
  tracer_run: 5,
  by_state: [state("prompt_for_pizza", 0, 6), state("prompt_for_size", 6, 0), state("tell_confirmed_soon", 0, 0, 6)],
};
const node = (id: string, depth: number) =>
  graphNode({ id, category: "Ordering", description: `the ${id} step`, depth, is_root: depth === 0 });
const GRAPH = workflowGraph(
  [START, node("prompt_for_pizza", 0), node("prompt_for_size", 1), node("tell_confirmed_soon", 2)],
  [
    { source: "__start__", target: "prompt_for_pizza", kind: "entry" },
    { source: "prompt_for_pizza", target: "prompt_for_size", kind: "flow" },
    { source: "prompt_for_size", target: "tell_confirmed_soon", kind: "flow" },
  ],
);

function serveRun(overrides: Parameters<typeof campaignRun>[0] = {}, stats: object = STATS) {
  const run = campaignRun(overrides);
  const asked: string[] = [];
  server.use(
    http.get(`/api/runs/${String(run.id)}/`, () => HttpResponse.json(run)),
    http.get(`/api/runs/${String(run.id)}/stats/`, () => HttpResponse.json(stats)),
    http.get("/api/runs/5/artefacts/graph/", () => HttpResponse.json({ name: "graph", content: GRAPH })),
    http.get(`/api/runs/${String(run.id)}/attempts/`, ({ request }) => {
      const verdict = new URL(request.url).searchParams.get("verdict");
      asked.push(verdict ?? "all");
      const results = ATTEMPTS.filter((a) => !verdict || a.verdict === verdict);
      return HttpResponse.json({ count: results.length, next: null, previous: null, results });
    }),
    http.get(`/api/runs/${String(run.id)}/events/`, () => HttpResponse.json({ results: [], next_after: 0 })),
  );
  return { run, asked };
}

describe("campaign run page", () => {
  it("shows the breach rate per attack and per delivery mode with their intervals", async () => {
    const { run } = serveRun();
    renderApp(`/security/runs/${String(run.id)}`, { loggedIn: true });

    expect(await screen.findByRole("heading", { level: 1, name: "Campaign run #77" })).toBeInTheDocument();
    const table = await screen.findByRole("table", { name: "Breach rate per attack" });
    const stealer = within(table).getByRole("rowheader", { name: "system_prompt_stealer" }).closest("tr");
    expect(stealer).toHaveTextContent("system_prompt_stealer22000100% [34.2%, 100%]");
    const amnesia = within(table).getByRole("rowheader", { name: "amnesia" }).closest("tr");
    expect(amnesia).toHaveTextContent("0% [0%, 79.4%]");
    expect(screen.getByRole("table", { name: "Breach rate per delivery mode" })).toHaveTextContent("direct3");
    expect(screen.getByLabelText("Totals")).toHaveTextContent("3 attempts: 2 breached, 1 resisted");
  });

  it("from TRACER's states: a heat map over TRACER's graph and the breach rate per state beside it", async () => {
    const { run } = serveRun({}, FROM_STATES);
    renderApp(`/security/runs/${String(run.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Breach rate per state" });
    const size = within(table).getByRole("rowheader", { name: "prompt_for_size" }).closest("tr");
    expect(size).toHaveTextContent("prompt_for_size66000100% [61%, 100%]");
    expect(size).toHaveAttribute("data-breached", "true");
    const breachedNode = await screen.findByTestId("graph-node-prompt_for_size");
    expect(breachedNode).toHaveTextContent("100% breached (6/6)");
    expect(screen.getByTestId("graph-node-prompt_for_pizza")).toHaveTextContent("0% breached (0/6)");
    expect(screen.getByTestId("graph-node-tell_confirmed_soon")).toHaveTextContent("undecided (6 inconclusive)");
  });

  it("lists the attempts, filters them, and shows the quoted evidence in the transcript as text", async () => {
    const { run, asked } = serveRun();
    const { user } = renderApp(`/security/runs/${String(run.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("tab", { name: "Attempts" }));
    const table = await screen.findByRole("table", { name: "Attempts" });
    expect(within(table).getAllByText(QUOTE)).toHaveLength(2);
    expect(within(table).getByText("resisted")).toBeInTheDocument();

    await user.click(screen.getByRole("combobox", { name: "Verdict" }));
    await user.click(await screen.findByRole("option", { name: "breached", hidden: true }));
    await waitFor(() => {
      expect(within(table).queryByText("resisted")).not.toBeInTheDocument();
    });
    expect(asked).toContain("breached");

    await user.click(within(table).getByRole("button", { name: "Show system_prompt_stealer attempt 1" }));
    const dialog = await screen.findByRole("dialog", { name: "system_prompt_stealer, attempt 1 (direct)" });
    const conversation = within(dialog).getByLabelText("Conversation");
    const marked = within(conversation).getByLabelText("Quoted as evidence");
    expect(marked.tagName).toBe("MARK");
    expect(marked).toHaveTextContent(QUOTE);
    // The chatbot's markup is text: no element was made from it.
    expect(within(dialog).getByText(/onerror/)).toBeInTheDocument();
    expect(dialog.querySelector("img")).toBeNull();
    expect(within(dialog).getByLabelText("Evidence")).toHaveTextContent(QUOTE);
    expect(within(dialog).getByText("warm-up")).toBeInTheDocument();
  });

  it("serves visitors of a public project read-only, and no other kind of run", async () => {
    const { run } = serveRun();
    renderApp(`/public/security/runs/${String(run.id)}`);
    expect(await screen.findByRole("heading", { level: 1, name: "Campaign run #77" })).toBeInTheDocument();
    expect(screen.getByText("A public project's run: read-only.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete run" })).not.toBeInTheDocument();

    serveRun({ id: 78, kind: "sensei" });
    renderApp("/security/runs/78", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "This run does not exist" })).toBeInTheDocument();
  });
});

describe("security API readers", () => {
  it("cuts a reply around its quotes, keeping every character", () => {
    const pieces = highlightQuotes(HOSTILE, [QUOTE, ""]);
    expect(pieces.map((p) => p.text).join("")).toBe(HOSTILE);
    expect(pieces.filter((p) => p.quoted).map((p) => p.text)).toEqual([QUOTE]);
    expect(highlightQuotes("nothing here", ["absent"])).toEqual([{ text: "nothing here", quoted: false }]);
  });
});
