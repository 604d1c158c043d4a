import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { conversationRecord, runStatistics, senseiResult, turn } from "../../testing/results";

type Verdict = "passed" | "failed" | "inconclusive";

function row(id: number, index: number, verdict: Verdict, reason: string) {
  return {
    id,
    profile: "order_pizza",
    index,
    has_errors: verdict !== "passed",
    error_codes: verdict === "passed" ? [] : [1002],
    verdict,
    verdict_reason: reason,
    turns: 4,
    duration_s: 2,
    cost_usd: 0.001,
    created_at: "2026-03-14T10:00:00Z",
  };
}

const ROWS = [
  row(1, 0, "passed", "passed: no chatbot fault; the user conveyed every goal's inputs"),
  row(2, 1, "failed", "goal_not_completed: the price was never given"),
  row(3, 2, "inconclusive", "inputs_not_conveyed: the user never said the size"),
];

const RESULT = senseiResult({ conversations: 3, with_errors: 2, passed: 1, failed: 1, inconclusive: 1 });

function senseiRun() {
  const project = workspaceDb.addProject();
  return workspaceDb.addRun({
    kind: "sensei",
    status: "succeeded",
    project: project.id,
    project_name: project.name,
    params: { profiles: [{ id: 1, name: "order_pizza" }] },
    result: RESULT,
  });
}

describe("SENSEI verdicts where users look", () => {
  it("lists each conversation's verdict, its reason when not passed, and filters by verdict on the server", async () => {
    const run = senseiRun();
    const verdictQueries: (string | null)[] = [];
    server.use(
      http.get(`/api/runs/${String(run.id)}/stats/`, () =>
        HttpResponse.json(
          runStatistics({
            kind: "sensei",
            conversations: 3,
            with_errors: 2,
            passed: 1,
            failed: 1,
            inconclusive: 1,
            failed_reasons: { goal_not_completed: 1 },
            inconclusive_reasons: { inputs_not_conveyed: 1 },
            errors_by_code: [{ code: 1002, name: "goal_not_completed", count: 2 }],
            profiles: [
              {
                profile: "order_pizza",
                conversations: 3,
                with_errors: 2,
                cost_usd: 0,
                passed: 1,
                failed: 1,
                inconclusive: 1,
              },
            ],
          }),
        ),
      ),
      http.get(`/api/runs/${String(run.id)}/conversations/`, ({ request }) => {
        const verdict = new URL(request.url).searchParams.get("verdict");
        verdictQueries.push(verdict);
        const rows = verdict === null ? ROWS : ROWS.filter((r) => r.verdict === verdict);
        return HttpResponse.json({ count: rows.length, next: null, previous: null, results: rows });
      }),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Conversations" });
    await within(table).findByText("inconclusive");
    expect(within(table).getByRole("columnheader", { name: "Verdict" })).toBeInTheDocument();
    const lines = within(table).getAllByRole("row").slice(1);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toHaveTextContent("passed");
    expect(lines[0]).not.toHaveTextContent("no chatbot fault");
    expect(lines[1]).toHaveTextContent("failed");
    expect(lines[1]).toHaveTextContent("goal not completed: the price was never given");
    expect(lines[2]).toHaveTextContent("inconclusive");
    expect(lines[2]).toHaveTextContent("inputs not conveyed: the user never said the size");

    // Per profile: verdict counts, not "with errors"; the pass rate leaves the inconclusive one out.
    const profiles = screen.getByRole("table", { name: "Results per profile" });
    expect(within(profiles).queryByText("With errors")).toBeNull();
    expect(profiles).toHaveTextContent("1 passed ·1 failed ·1 inconclusive");
    expect(profiles).toHaveTextContent("50%");

    await user.click(screen.getByRole("combobox", { name: "Verdict" }));
    await user.click(await screen.findByRole("option", { name: "inconclusive", hidden: true }));
    await within(table).findByText("inputs not conveyed: the user never said the size");
    await expect.poll(() => within(table).getAllByRole("row").length).toBe(2);
    expect(verdictQueries).toContain("inconclusive");
  });

  it("shows verdict counts in the runs table instead of conversations with errors", async () => {
    const run = senseiRun();
    renderApp("/sensei", { loggedIn: true });
    const table = await screen.findByRole("table", { name: "SENSEI runs" });
    const line = (await within(table).findByRole("link", { name: `#${String(run.id)}` })).closest("tr");
    expect(within(table).getByRole("columnheader", { name: "Verdicts" })).toBeInTheDocument();
    expect(within(table).queryByRole("columnheader", { name: "Errors" })).toBeNull();
    expect(line).toHaveTextContent("1 passed ·1 failed ·1 inconclusive");
    expect(line).not.toHaveTextContent("with errors");
  });

  it("shows what the run adapted or warned about above its figures, as text", async () => {
    const project = workspaceDb.addProject();
    const warning =
      "gpt-5-mini accepts only its default temperature: the temperature 0.8 the profiles asked for is not sent " +
      "<img src=x onerror=alert(1)>";
    const run = workspaceDb.addRun({
      kind: "sensei",
      status: "succeeded",
      project: project.id,
      project_name: project.name,
      params: { profiles: [{ id: 1, name: "order_pizza" }] },
      result: { ...RESULT, warnings: [warning] },
    });
    renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });

    const alert = await screen.findByRole("alert", { name: "Warnings" });
    expect(alert).toHaveTextContent(warning);
    expect(document.querySelector("img[src=x]")).toBeNull();
  });

  it("keeps the old count for runs stored before verdicts", async () => {
    const run = workspaceDb.addRun({
      kind: "sensei",
      status: "succeeded",
      params: { profiles: [] },
      result: senseiResult({ conversations: 4, with_errors: 1 }),
    });
    renderApp("/sensei", { loggedIn: true });
    const table = await screen.findByRole("table", { name: "SENSEI runs" });
    const line = (await within(table).findByRole("link", { name: `#${String(run.id)}` })).closest("tr");
    expect(line).toHaveTextContent("1 with errors");
  });
});

describe("who is at fault, where users look", () => {
  const FAULT_ROWS = [
    { ...row(1, 0, "passed", "passed"), fault: null, evidence_turn: null },
    { ...row(2, 1, "failed", "ignored_input: the size was ignored"), fault: "chatbot", evidence_turn: 3 },
    {
      ...row(3, 2, "inconclusive", "user_left_role: it answered as the bot"),
      fault: "simulated_user",
      evidence_turn: null,
    },
    { ...row(4, 3, "inconclusive", "extraction_unreadable: {}"), fault: "parley_llm", evidence_turn: null },
  ];
  const FAULT_RESULT = {
    conversations: 4,
    with_errors: 3,
    passed: 1,
    failed: 1,
    inconclusive: 2,
    faults: { chatbot: 1, simulated_user: 1, parley_llm: 1 },
  };

  it("shows who is at fault for each conversation and filters by it on the server", async () => {
    const run = senseiRun();
    const faultQueries: (string | null)[] = [];
    server.use(
      http.get(`/api/runs/${String(run.id)}/stats/`, () =>
        HttpResponse.json(
          runStatistics({
            kind: "sensei",
            ...FAULT_RESULT,
            failed_reasons: { ignored_input: 1 },
            inconclusive_reasons: { user_left_role: 1, extraction_unreadable: 1 },
          }),
        ),
      ),
      http.get(`/api/runs/${String(run.id)}/conversations/`, ({ request }) => {
        const fault = new URL(request.url).searchParams.get("fault");
        faultQueries.push(fault);
        const rows = fault === null ? FAULT_ROWS : FAULT_ROWS.filter((r) => r.fault === fault);
        return HttpResponse.json({ count: rows.length, next: null, previous: null, results: rows });
      }),
      // The detail row carries the fields; the stored record of this run does not.
      http.get(`/api/runs/${String(run.id)}/conversations/2/`, () =>
        HttpResponse.json({
          ...FAULT_ROWS[1],
          record: conversationRecord({
            id: "ab12cd34-order_pizza-1",
            verdict: "failed",
            verdict_reason: "ignored_input: the size was ignored",
            turns: [
              turn("user", "A small one"),
              turn("bot", "Which size?"),
              turn("user", "Small."),
              turn("bot", "Which size?"),
            ],
          }),
        }),
      ),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Conversations" });
    await within(table).findByText("Simulated user");
    // The run's inconclusive figure says who is at fault, in the same words.
    const inconclusive = (await screen.findByText("Inconclusive (not the chatbot's fault)")).parentElement;
    await waitFor(() => {
      expect(inconclusive).toHaveTextContent("At fault: Simulated user 1 · Parley's model 1");
    });
    expect(within(table).getByRole("columnheader", { name: "At fault" })).toBeInTheDocument();
    const lines = within(table).getAllByRole("row").slice(1);
    expect(lines[0]).not.toHaveTextContent(/Chatbot|Simulated user|Parley's model/);
    expect(lines[1]).toHaveTextContent("Chatbot");
    expect(lines[1]).toHaveTextContent("turn 4");
    expect(lines[2]).toHaveTextContent("Simulated user");
    expect(lines[3]).toHaveTextContent("Parley's model");

    // Its transcript says the same, and leads to the turn.
    await user.click(within(table).getByRole("button", { name: "Read conversation 2 of order_pizza" }));
    const dialog = await screen.findByRole("dialog");
    const verdict = await within(dialog).findByRole("region", { name: "Verdict" });
    expect(verdict).toHaveTextContent("At fault: Chatbot");
    expect(within(verdict).getByRole("link", { name: "turn 4" })).toBeInTheDocument();
    expect(within(dialog).getByRole("listitem", { name: "Chatbot, turn 4, the evidence" })).toBeInTheDocument();
    await user.keyboard("{Escape}");
    await expect.poll(() => screen.queryByRole("dialog")).toBeNull();

    await user.click(screen.getByRole("combobox", { name: "At fault" }));
    await user.click(await screen.findByRole("option", { name: "Parley's model", hidden: true }));
    await expect.poll(() => within(table).getAllByRole("row").length).toBe(2);
    expect(within(table).getAllByRole("row")[1]).toHaveTextContent("extraction unreadable");
    expect(faultQueries).toContain("parley_llm");
  });

  it("breaks the inconclusive count of a run down by who is at fault in the runs table", async () => {
    const project = workspaceDb.addProject();
    const run = workspaceDb.addRun({
      kind: "sensei",
      status: "succeeded",
      project: project.id,
      project_name: project.name,
      params: { profiles: [{ id: 1, name: "order_pizza" }] },
      result: senseiResult(FAULT_RESULT),
    });
    renderApp("/sensei", { loggedIn: true });
    const table = await screen.findByRole("table", { name: "SENSEI runs" });
    const line = (await within(table).findByRole("link", { name: `#${String(run.id)}` })).closest("tr");
    expect(line).toHaveTextContent("1 passed ·1 failed ·2 inconclusive");
    expect(line).toHaveTextContent("Inconclusive, at fault: Simulated user 1 · Parley's model 1");
  });

  it("shows no fault for runs stored before verdicts with proof", async () => {
    const run = senseiRun();
    renderApp("/sensei", { loggedIn: true });
    const table = await screen.findByRole("table", { name: "SENSEI runs" });
    const line = (await within(table).findByRole("link", { name: `#${String(run.id)}` })).closest("tr");
    expect(line).toHaveTextContent("1 passed ·1 failed ·1 inconclusive");
    expect(line).not.toHaveTextContent("at fault");
  });
});
