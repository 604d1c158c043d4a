import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { RunCoverage } from "../../api/runs/coverage";
import type { ResultOf } from "../../api/runs/runs";
import { graphNode, START } from "../../testing/graph";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";

const HOSTILE = '<img src=x onerror="alert(1)">';

function functionality(id: string, label: string, description = "") {
  return graphNode({ id, label, category: "Ordering", description });
}

function node(name: string, label: string, reached: number, failed: number, decidable = true) {
  return {
    name,
    label,
    description: name === "track_delivery" ? HOSTILE : "",
    parents: [],
    decidable,
    reached,
    failed,
    evidence: reached ? [{ conversation: "c0", turn: 1, words: ["margherita", "order"] }] : [],
    failed_conversations: failed ? ["c1"] : [],
  };
}

function coverage(runId: number, decided = true): RunCoverage {
  return {
    run: runId,
    tracer_run: 41,
    graph: {
      nodes: [
        START,
        functionality("order_pizza", "Order pizza"),
        functionality("opening_hours", "Opening hours"),
        functionality("track_delivery", "Track delivery", HOSTILE),
        functionality("ask_for_info", "Ask for info"),
      ],
      edges: [{ source: "__start__", target: "order_pizza", kind: "entry" }],
      categories: ["Ordering"],
      joins: [],
    },
    method: "words",
    method_note: "approximation: a conversation reaches a functionality when a chatbot reply shares words",
    decided,
    conversations: 3,
    reached_none: 1,
    failed_unplaced: 0,
    nodes: [
      node("order_pizza", "Order pizza", 2, 1),
      node("opening_hours", "Opening hours", 0, 0),
      node("track_delivery", "Track delivery", 0, 0),
      node("ask_for_info", "Ask for info", 0, 0, false),
    ],
    unreached: decided ? ["opening_hours", "track_delivery"] : [],
    undecidable: ["ask_for_info"],
    notes: ["approximation: a conversation reaches a functionality when a chatbot reply shares words"],
  };
}

const drafts: ResultOf<"profile_draft"> = {
  kind: "profile_draft",
  profiles: [{ id: 90, name: "draft_early_bird", valid: true }],
  missing: [],
  warnings: [],
  usage: { calls: 2, prompt_tokens: 900, completion_tokens: 300, cost_usd: 0.001, failed_calls: 0, unpriced_calls: 0 },
};

describe("the coverage map", () => {
  it("badges each functionality with its counts and lets the owner draft profiles for unreached ones", async () => {
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    const drafting = workspaceDb.addRun(
      { kind: "profile_draft", status: "running", project: 7, project_name: "Pizza" },
      { status: "succeeded", result: drafts },
    );
    const drafted: unknown[] = [];
    server.use(
      http.get(`/api/runs/${String(run.id)}/coverage/`, () => HttpResponse.json(coverage(run.id))),
      http.post(`/api/runs/${String(run.id)}/coverage/drafts/`, async ({ request }) => {
        drafted.push(await request.json());
        return HttpResponse.json(drafting, { status: 202 });
      }),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}/coverage`, { loggedIn: true });

    const graph = await screen.findByRole("figure", { name: "Workflow graph" });
    expect(await within(graph).findByLabelText("Functionality Order pizza, 2 reached · 1 failed")).toBeInTheDocument();
    expect(within(graph).getByLabelText("Functionality Opening hours, never reached")).toBeInTheDocument();
    expect(within(graph).getByLabelText("Functionality Ask for info, not decidable")).toBeInTheDocument();
    const table = screen.getByRole("table", { name: "Coverage by functionality" });
    const pizza = within(table).getByRole("row", { name: /Order pizza/ });
    expect(pizza).toHaveTextContent("21c0 turn 2: margherita, order");
    expect(screen.getByText(/approximation/, { selector: "p" })).toBeInTheDocument();
    // What the LLM wrote about the chatbot is shown as text, never as markup.
    expect(document.querySelector("img[src=x]")).toBeNull();
    expect(within(table).getAllByText(HOSTILE).length).toBeGreaterThan(0);

    const unreached = screen.getByRole("region", { name: "Never reached" });
    const draft = within(unreached).getByRole("button", { name: /Draft profiles/ });
    expect(draft).toBeDisabled();
    await user.click(within(unreached).getByRole("checkbox", { name: /Opening hours/ }));
    await user.click(within(unreached).getByRole("button", { name: "Draft profiles for 1 functionality" }));

    expect(drafted).toEqual([{ functionalities: ["opening_hours"], tracer: 41 }]);
    const done = await screen.findByRole("status", { name: "Drafted profiles" }, { timeout: 8000 });
    expect(within(done).getByRole("link", { name: "draft_early_bird" })).toHaveAttribute(
      "href",
      "/projects/7/profiles/90",
    );
    expect(within(done).getByRole("link", { name: "test center" })).toHaveAttribute("href", "/projects/7");
  }, 20_000);

  it("calls nothing unreached when the words never met, and offers no drafting to a public visitor", async () => {
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    server.use(http.get(`/api/runs/${String(run.id)}/coverage/`, () => HttpResponse.json(coverage(run.id, false))));
    renderApp(`/public/sensei/${String(run.id)}/coverage`);

    const graph = await screen.findByRole("figure", { name: "Workflow graph" });
    expect(await within(graph).findByLabelText("Functionality Opening hours, not decidable")).toBeInTheDocument();
    expect(screen.queryByRole("region", { name: "Never reached" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Draft profiles/ })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "TRACER run #41" })).toHaveAttribute("href", "/public/tracer/41");
  });

  it("says what to do when the project has no TRACER graph", async () => {
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    const message = "This project has no finished TRACER run: explore the chatbot with TRACER first.";
    server.use(
      http.get(`/api/runs/${String(run.id)}/coverage/`, () =>
        HttpResponse.json({ detail: message, code: "invalid", fields: { tracer: [message] } }, { status: 400 }),
      ),
    );
    renderApp(`/sensei/${String(run.id)}/coverage`, { loggedIn: true });
    expect(await screen.findByText(message)).toBeInTheDocument();
  });
});
