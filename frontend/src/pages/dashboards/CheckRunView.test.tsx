import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { checkResult, conversationRecord, ruleReport, runStatistics, turn } from "../../testing/results";

const WANTED = "1a2b3c4d-order_pizza-1";

function conversationRow(id: number, index: number) {
  return {
    id,
    profile: "order_pizza",
    index,
    has_errors: true,
    error_codes: [],
    turns: 2,
    duration_s: 1,
    cost_usd: 0.001,
    created_at: "2026-03-14T10:00:00Z",
  };
}

describe("check run", () => {
  it("opens a failing check's conversation in one click, the very one the result names", async () => {
    const sensei = workspaceDb.addRun({ kind: "sensei", status: "succeeded" });
    const check = workspaceDb.addRun({
      kind: "check",
      status: "succeeded",
      params: { sensei_runs: [sensei.id], rules: [{ id: 1, name: "price_given" }] },
      result: checkResult({ conversations: 2, rules: 1, failed: 1 }),
    });
    const recordQueries: (string | null)[] = [];
    server.use(
      http.get(`/api/runs/${String(check.id)}/results/`, () =>
        HttpResponse.json([
          {
            id: 1,
            rule: 1,
            name: "price_given",
            status: "failed",
            checks: 2,
            passed: 1,
            failed: 1,
            not_applicable: 0,
            errors: 0,
            report: ruleReport({
              name: "price_given",
              description: "a price is always given",
              results: [{ conversations: [WANTED], outcome: "fail", reason: "no price", message: null }],
            }),
          },
        ]),
      ),
      http.get(`/api/runs/${String(check.id)}/stats/`, () => HttpResponse.json(runStatistics({ kind: "check" }))),
      http.get(`/api/runs/${String(sensei.id)}/conversations/`, ({ request }) => {
        const record = new URL(request.url).searchParams.get("record");
        recordQueries.push(record);
        // The server matches the record id exactly: another conversation with the same profile is not it.
        const rows = record === WANTED ? [conversationRow(501, 1)] : [];
        return HttpResponse.json({ count: rows.length, next: null, previous: null, results: rows });
      }),
      http.get(`/api/runs/${String(sensei.id)}/conversations/501/`, () =>
        HttpResponse.json({
          ...conversationRow(501, 1),
          record: conversationRecord({
            id: WANTED,
            index: 1,
            turns: [turn("user", "A large one please"), turn("bot", "That will be **12 €**")],
          }),
        }),
      ),
    );
    const { user } = renderApp(`/checks/${String(check.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: /price_given/ }));
    await user.click(await screen.findByRole("button", { name: `Open conversation ${WANTED}` }));

    const dialog = await screen.findByRole("dialog", { name: "order_pizza — conversation 2" });
    expect(await within(dialog).findByText("A large one please")).toBeInTheDocument();
    expect(recordQueries).toEqual([WANTED]);
  });

  it("says so when the conversation is no longer stored", async () => {
    const sensei = workspaceDb.addRun({ kind: "sensei", status: "succeeded" });
    const check = workspaceDb.addRun({
      kind: "check",
      status: "succeeded",
      params: { sensei_runs: [sensei.id] },
      result: null,
    });
    server.use(
      http.get(`/api/runs/${String(check.id)}/results/`, () =>
        HttpResponse.json([
          {
            id: 1,
            rule: 1,
            name: "price_given",
            status: "failed",
            checks: 1,
            passed: 0,
            failed: 1,
            not_applicable: 0,
            errors: 0,
            report: ruleReport({
              name: "price_given",
              results: [{ conversations: [WANTED], outcome: "fail", reason: null, message: null }],
            }),
          },
        ]),
      ),
      http.get(`/api/runs/${String(check.id)}/stats/`, () => HttpResponse.json(runStatistics({ kind: "check" }))),
      http.get(`/api/runs/${String(sensei.id)}/conversations/`, () =>
        HttpResponse.json({ count: 0, next: null, previous: null, results: [] }),
      ),
    );
    const { user } = renderApp(`/checks/${String(check.id)}`, { loggedIn: true });
    await user.click(await screen.findByRole("button", { name: /price_given/ }));
    await user.click(await screen.findByRole("button", { name: `Open conversation ${WANTED}` }));
    const dialog = await screen.findByRole("dialog", { name: WANTED });
    expect(await within(dialog).findByText(/is no longer stored/)).toBeInTheDocument();
  });
});

describe("not found", () => {
  it("shows a run that does not exist as not found, with a way back", async () => {
    renderApp("/tracer/999", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "This run does not exist" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to the dashboard" })).toHaveAttribute("href", "/tracer");
  });

  it("shows a run of another kind at this address as not found", async () => {
    const sensei = workspaceDb.addRun({ kind: "sensei", status: "succeeded" });
    renderApp(`/tracer/${String(sensei.id)}`, { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "This run does not exist" })).toBeInTheDocument();
  });

  it("shows a project that does not exist as not found, with a way back", async () => {
    renderApp("/projects/999", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "This project does not exist" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Back to your projects" })).toHaveAttribute("href", "/projects");
  });

  it("answers an unknown address with the app's own not-found page and a way home", async () => {
    renderApp("/no/such/page", { loggedIn: true });
    expect(await screen.findByRole("heading", { name: "Page not found" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to the home page" })).toHaveAttribute("href", "/");
  });
});
