import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { Comparison } from "../../api/runs/compare";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { conversationRecord, turn } from "../../testing/results";

const side = (passed: number, decided: number, low: number, high: number) => ({
  passed,
  failed: decided - passed,
  decided,
  inconclusive: 0,
  rate: decided ? passed / decided : null,
  low,
  high,
});

function brief(id: string, verdict: string, reason = "") {
  return {
    id,
    index: 0,
    repeat: 0,
    verdict,
    reason,
    source: "record",
    fault_turn: verdict === "failed" ? 1 : null,
    rules_failed: [],
    errors: verdict === "failed" ? [{ code: 500, name: "chatbot_crash", message: "HTTP 500", turn: 1 }] : [],
    turns: 2,
  };
}

function comparison(baselineRun: number, run: number): Comparison {
  const change = { delta: -1, low: -1, high: -0.61 };
  const regressed = side(0, 6, 0, 0.39);
  const match = {
    profile: "pizza_order",
    planned_index: 0,
    inputs: { size: "small" },
    baseline_verdict: "passed" as const,
    run_verdict: "failed" as const,
    baseline: [brief("base-pizza-0", "passed")],
    run: [brief("new-pizza-0", "failed", "chatbot_crash: HTTP 500 Internal Server Error (turn 2)")],
  };
  return {
    verdict: "regressed",
    reasons: [
      "profile pizza_order: regressed — pass rate 100 % → 0 % (95 % CI of the change -100 points … -61 points)",
    ],
    threshold: 0.1,
    baseline_label: `run ${String(baselineRun)}`,
    run_label: `run ${String(run)}`,
    overall: {
      kind: "overall",
      name: "all conversations",
      baseline: side(10, 10, 0.72, 1),
      run: side(4, 10, 0.17, 0.69),
      change: { delta: -0.6, low: -0.83, high: -0.25 },
      status: "regressed",
      why: "",
    },
    profiles: [
      {
        kind: "profile",
        name: "pizza_order",
        baseline: side(6, 6, 0.61, 1),
        run: regressed,
        change,
        status: "regressed",
        why: "",
      },
      {
        kind: "profile",
        name: "pizza_faq",
        baseline: side(4, 4, 0.51, 1),
        run: side(4, 4, 0.51, 1),
        change: { delta: 0, low: -0.49, high: 0.49 },
        status: "unchanged",
        why: "",
      },
    ],
    rules: [],
    regressions: [],
    newly_failing: [match],
    newly_passing: [],
    flaky: [],
    new_error_codes: [{ code: 500, name: "chatbot_crash", count: 6, conversations: ["new-pizza-0"] }],
    gone_error_codes: [],
    inconclusive: { baseline: [], run: [] },
    inconclusive_reasons: { baseline: {}, run: { rate_limited: 2 } },
    matched: 10,
    baseline_only: 0,
    run_only: 0,
    cost: {
      baseline_usd: 0.01,
      run_usd: 0.012,
      delta_usd: 0.002,
      baseline_per_conversation_usd: 0.001,
      run_per_conversation_usd: 0.0012,
      delta_per_conversation_usd: 0.0002,
    },
    response_time: {
      baseline: { count: 10, mean_s: 0.2, p50_s: 0.2, p95_s: 0.3 },
      run: { count: 10, mean_s: 0.1, p50_s: 0.1, p95_s: 0.2 },
      delta_mean_s: -0.1,
      delta_p95_s: -0.1,
    },
    notes: [],
    baseline_run: baselineRun,
    run,
  };
}

function conversationHandlers(runId: number, recordId: string, rowId: number, botText: string) {
  const row = {
    id: rowId,
    profile: "pizza_order",
    index: 0,
    has_errors: false,
    error_codes: [],
    turns: 2,
    duration_s: 1,
    cost_usd: 0.001,
    created_at: "2026-03-14T10:00:00Z",
  };
  return [
    http.get(`/api/runs/${String(runId)}/conversations/`, ({ request }) => {
      const found = new URL(request.url).searchParams.get("record") === recordId ? [row] : [];
      return HttpResponse.json({ count: found.length, next: null, previous: null, results: found });
    }),
    http.get(`/api/runs/${String(runId)}/conversations/${String(rowId)}/`, () =>
      HttpResponse.json({
        ...row,
        record: conversationRecord({
          id: recordId,
          profile: "pizza_order",
          turns: [turn("user", "A small pizza, please"), turn("bot", botText)],
        }),
      }),
    ),
  ];
}

describe("comparison page", () => {
  it("says the run regressed, names the profile and opens a newly failing conversation beside the baseline's", async () => {
    const baseline = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7 });
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7 });
    const asked: (string | null)[] = [];
    server.use(
      http.get(`/api/runs/${String(run.id)}/compare/`, ({ request }) => {
        asked.push(new URL(request.url).searchParams.get("threshold"));
        return HttpResponse.json(comparison(baseline.id, run.id));
      }),
      ...conversationHandlers(baseline.id, "base-pizza-0", 901, "One small pizza, that is 9 €."),
      ...conversationHandlers(run.id, "new-pizza-0", 902, "Internal Server Error"),
    );
    const { user } = renderApp(`/sensei/${String(run.id)}/compare`, { loggedIn: true });

    expect(await screen.findByTestId("verdict")).toHaveTextContent("regressed");
    expect(screen.getByRole("list", { name: "Why" })).toHaveTextContent("profile pizza_order: regressed");
    const rates = screen.getByRole("table", { name: "Profiles" });
    const order = within(rates).getByRole("row", { name: /pizza_order/ });
    expect(order).toHaveTextContent("100 % (6/6)");
    expect(order).toHaveTextContent("0 % (0/6)");
    expect(order).toHaveTextContent("−100 points");
    expect(within(rates).getByRole("row", { name: /pizza_faq/ })).toHaveTextContent("unchanged");
    expect(screen.getByLabelText("New error codes")).toHaveTextContent("500 chatbot_crash × 6");
    expect(screen.getByRole("region", { name: "Inconclusive conversations" })).toHaveTextContent("rate_limited × 2");

    await user.click(screen.getByRole("button", { name: "Compare transcripts of pizza_order #0" }));
    const both = await screen.findByRole("region", { name: "Side-by-side transcripts" });
    expect(await within(both).findByText("One small pizza, that is 9 €.")).toBeInTheDocument();
    expect(await within(both).findByText("Internal Server Error")).toBeInTheDocument();
    expect(within(both).getByText(`Baseline (run #${String(baseline.id)})`)).toBeInTheDocument();

    await user.click(screen.getByRole("combobox", { name: "Threshold" }));
    await user.click(await screen.findByRole("option", { name: "Threshold 30 points", hidden: true }));
    await screen.findByTestId("verdict");
    expect(asked).toContain("0.3");
  });

  it("explains how to choose a baseline when the project has none", async () => {
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7 });
    server.use(
      http.get(`/api/runs/${String(run.id)}/compare/`, () =>
        HttpResponse.json(
          {
            detail: "Invalid input.",
            code: "invalid",
            fields: { baseline: ["This project has no baseline: mark a SENSEI run as its baseline first."] },
          },
          { status: 400 },
        ),
      ),
    );
    renderApp(`/sensei/${String(run.id)}/compare`, { loggedIn: true });
    expect(await screen.findByText("Nothing to compare with yet")).toBeInTheDocument();
    expect(screen.getByText(/This project has no baseline/)).toBeInTheDocument();
  });
});
