import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { ResultOf } from "../../api/runs/runs";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { conversationRecord, profileReliability, rate, runStatistics, senseiResult, turn } from "../../testing/results";

/** A shrink run's result as the server serves it, with `changes` over a failure that reproduced. */
function shrinkResult(changes: Partial<ResultOf<"shrink">>): ResultOf<"shrink"> {
  const reproduction = { failed: 3, replays: 3, needed: 2 };
  return {
    kind: "shrink",
    name: "shrunk_order_pizza_1_check_failed",
    record_id: "r1",
    profile: "order_pizza",
    conversation_index: 1,
    failure: {
      kind: "reply",
      check: {
        kind: "states",
        value: "money",
        type: { kind: "money", item: null, values: [], name: null, format: null },
      },
      anchor: null,
      reason: "check_failed",
      explanation: "The reply does not state an amount of money.",
      source: "rule",
      failing_turn: 17,
      failing_step: 8,
      failing_reply: "Your total is",
    },
    reproduced: true,
    original: reproduction,
    reproduction,
    script: [],
    original_script: [],
    original_turns: 9,
    shrunk_turns: 9,
    chatbot_calls: 0,
    llm_calls: 0,
    candidates: 0,
    capped: false,
    settings: {},
    diff: [],
    transcript: [],
    pinned_profile: "",
    warnings: [],
    sensei_run: 1,
    conversation: 12,
    pinned: null,
    ...changes,
  };
}

function row(id: number, index: number, verdict: "passed" | "failed", profile = "order_pizza") {
  return {
    id,
    profile,
    index,
    has_errors: verdict === "failed",
    error_codes: verdict === "failed" ? [1004] : [],
    verdict,
    verdict_reason: verdict === "failed" ? "check_failed: step 9 ('coke'): states money failed" : "passed",
    turns: 18,
    duration_s: 2,
    cost_usd: 0,
    created_at: "2026-03-14T10:00:00Z",
  };
}

const HOSTILE = '<img src=x onerror="alert(1)">';

function stats(profiles: string[]) {
  return runStatistics({
    kind: "sensei",
    conversations: 6,
    with_errors: 2,
    passed: 4,
    failed: 2,
    inconclusive: 0,
    failed_reasons: { check_failed: 2 },
    profiles: profiles.map((profile) => ({
      profile,
      conversations: 3,
      with_errors: 1,
      cost_usd: 0,
      passed: 2,
      failed: 1,
      inconclusive: 0,
    })),
  });
}

function planned(index: number, passed: number, verdict: "passed" | "failed" | "flaky") {
  return {
    planned_index: index,
    inputs: {},
    repeats: 3,
    decided: 3,
    passed,
    pass_k: passed === 3,
    pass_at_1: rate(passed, 3),
    verdict,
  };
}

const RELIABILITY = [
  profileReliability({
    profile: "greeting",
    k: 3,
    planned: 1,
    pass_k: rate(1, 1),
    pass_at_1: rate(3, 3),
    conversations: [planned(0, 3, "passed")],
  }),
  profileReliability({
    profile: "order_pizza",
    k: 3,
    planned: 2,
    pass_k: rate(0, 2),
    pass_at_1: rate(2, 6),
    flaky: 1,
    conversations: [planned(1, 2, "flaky"), planned(0, 0, "failed")],
  }),
];

function senseiRun(owned = true) {
  const project = workspaceDb.addProject();
  const run = workspaceDb.addRun({
    is_owner: owned,
    kind: "sensei",
    status: "succeeded",
    project: project.id,
    project_name: project.name,
    params: { profiles: [{ id: 1, name: "order_pizza" }] },
    result: senseiResult({
      conversations: 6,
      with_errors: 2,
      passed: 4,
      failed: 2,
      inconclusive: 0,
      reliability: RELIABILITY,
    }),
  });
  server.use(
    http.get(`/api/runs/${String(run.id)}/stats/`, () => HttpResponse.json(stats(["greeting", "order_pizza"]))),
    http.get(`/api/runs/${String(run.id)}/conversations/`, () =>
      HttpResponse.json({
        count: 2,
        next: null,
        previous: null,
        results: [row(11, 0, "passed"), row(12, 1, "failed")],
      }),
    ),
    http.get(`/api/runs/${String(run.id)}/conversations/12/`, () =>
      HttpResponse.json({
        ...row(12, 1, "failed"),
        record: conversationRecord({
          id: "r-12",
          index: 1,
          turns: [turn("user", "hi there"), turn("bot", "Welcome!")],
        }),
      }),
    ),
  );
  return { run, project };
}

async function readButton(table: HTMLElement, line: number) {
  const row = (await within(table).findAllByRole("row"))[line];
  if (row === undefined) throw new Error(`no row ${String(line)}`);
  return within(row).getByRole("button", { name: /Read/ });
}

describe("Shrink this failure", () => {
  it("lets the owner shrink a failed conversation and shows the pinned profile and the report", async () => {
    const { run, project } = senseiRun();
    const job = workspaceDb.addRun(
      { kind: "shrink", status: "running", project: project.id, project_name: project.name },
      {
        status: "succeeded",
        result: shrinkResult({
          reproduced: true,
          script: ["I'd like to build my own medium mushrooms and olives", `2 coke ${HOSTILE}`],
          original_turns: 9,
          shrunk_turns: 2,
          reproduction: { failed: 3, replays: 3, needed: 2 },
          chatbot_calls: 106,
          llm_calls: 0,
          pinned: { id: 77, name: "shrunk_order_pizza_1_check_failed", valid: true },
          warnings: ["Shrinking replays…"],
        }),
      },
    );
    const started: unknown[] = [];
    server.use(
      http.post(`/api/runs/${String(run.id)}/conversations/12/shrink/`, async ({ request }) => {
        started.push(await request.json());
        return HttpResponse.json(job, { status: 202 });
      }),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Conversations" });
    await user.click(await readButton(table, 2));
    const dialog = await screen.findByRole("dialog", { name: /order_pizza — conversation 2/ });
    expect(within(dialog).getByText(/real requests/)).toBeInTheDocument();
    await user.click(await within(dialog).findByRole("button", { name: "Shrink this failure" }));

    expect(started).toEqual([{}]);
    const done = await within(dialog).findByRole("status", { name: "Shrunk failure" }, { timeout: 8000 });
    expect(done).toHaveTextContent("Shrunk from 9 to 2 user turn(s)");
    expect(done).toHaveTextContent("Reproduced in 3 of 3 replays; fails: states money.");
    expect(within(done).getByRole("link", { name: "shrunk_order_pizza_1_check_failed" })).toHaveAttribute(
      "href",
      `/projects/${String(project.id)}/profiles/77`,
    );
    expect(within(done).getByText(`2 coke ${HOSTILE}`)).toBeInTheDocument(); // the user's words, as text
    expect(document.querySelector("img[src=x]")).toBeNull();
    expect(within(done).getByRole("button", { name: "Bug report (Markdown)" })).toBeInTheDocument();
  }, 20_000);

  it("offers no shrinking to someone who does not own the run", async () => {
    const { run } = senseiRun(false);
    const { user } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });
    const table = await screen.findByRole("table", { name: "Conversations" });
    await user.click(await readButton(table, 2));
    const dialog = await screen.findByRole("dialog", { name: /conversation 2/ });
    await within(dialog).findByText("Welcome!");
    expect(within(dialog).queryByRole("button", { name: "Shrink this failure" })).not.toBeInTheDocument();
  });

  it("offers no shrinking on a passed conversation", async () => {
    const { run } = senseiRun();
    server.use(
      http.get(`/api/runs/${String(run.id)}/conversations/11/`, () =>
        HttpResponse.json({ ...row(11, 0, "passed"), record: conversationRecord({ id: "r-11" }) }),
      ),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });
    const table = await screen.findByRole("table", { name: "Conversations" });
    await user.click(await readButton(table, 1));
    const dialog = await screen.findByRole("dialog", { name: /conversation 1/ });
    await within(dialog).findByText(/Duration/);
    expect(within(dialog).queryByRole("button", { name: "Shrink this failure" })).not.toBeInTheDocument();
  });

  it("shows pass^k beside pass@1 per profile, the profiles with flaky conversations first", async () => {
    const { run } = senseiRun();
    renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });
    const table = await screen.findByRole("table", { name: "Results per profile" });
    expect(within(table).getByRole("columnheader", { name: "Reliability" })).toBeInTheDocument();
    const lines = within(table).getAllByRole("row").slice(1);
    expect(lines[0]).toHaveTextContent("order_pizza");
    expect(lines[0]).toHaveTextContent("pass^3 0% · pass@1 33%");
    expect(lines[0]).toHaveTextContent("1 flaky");
    expect(lines[1]).toHaveTextContent("greeting");
    const shaky = screen.getByRole("table", { name: "Conversations that did not pass every repeat" });
    const rows = within(shaky).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell")[2]?.textContent)).toEqual(["flaky", "failed"]);
    expect(rows[0]).toHaveTextContent("2 of 3 decided (of 3)");
  });
});
