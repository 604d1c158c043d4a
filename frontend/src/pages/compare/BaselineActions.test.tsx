import { screen } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { replaySavings, runStatistics, senseiResult } from "../../testing/results";

describe("baseline actions on a SENSEI run", () => {
  it("lets the owner make the run the project's baseline, then offers the comparison on the other runs", async () => {
    const run = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    const other = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    let baseline: number | null = null;
    const empty = { count: 0, next: null, previous: null, results: [] };
    server.use(
      http.get("/api/projects/7/baseline/", () => HttpResponse.json({ project: 7, run: baseline })),
      http.post(`/api/runs/${String(run.id)}/baseline/`, () => {
        baseline = run.id;
        return HttpResponse.json({ project: 7, run: baseline });
      }),
      http.get("/api/runs/:id/stats/", () => HttpResponse.json(runStatistics({ kind: "sensei", conversations: 0 }))),
      http.get("/api/runs/:id/conversations/", () => HttpResponse.json(empty)),
    );
    const { user, router } = renderApp(`/sensei/${String(run.id)}`, { loggedIn: true });

    expect(screen.queryByRole("link", { name: "Compare with baseline" })).not.toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: "Use as baseline" }));
    expect(await screen.findByText("Project baseline")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Stop using as baseline" })).toBeInTheDocument();

    await router.navigate(`/sensei/${String(other.id)}`);
    const compare = await screen.findByRole("link", { name: "Compare with baseline" });
    expect(compare).toHaveAttribute("href", `/sensei/${String(other.id)}/compare`);
  });

  it("re-runs against the current chatbot and shows what the re-run saved", async () => {
    const source = workspaceDb.addRun({ kind: "sensei", status: "succeeded", project: 7, project_name: "Pizza" });
    const rerun = workspaceDb.addRun({
      kind: "sensei",
      status: "succeeded",
      project: 7,
      project_name: "Pizza",
      result: senseiResult({ replay: replaySavings({ source: source.id, calls_saved: 118 }) }),
    });
    const empty = { count: 0, next: null, previous: null, results: [] };
    server.use(
      http.get("/api/projects/7/baseline/", () => HttpResponse.json({ project: 7, run: null })),
      http.post(`/api/runs/${String(source.id)}/rerun/`, () => HttpResponse.json(rerun, { status: 201 })),
      http.get("/api/runs/:id/stats/", () => HttpResponse.json(runStatistics({ kind: "sensei", conversations: 0 }))),
      http.get("/api/runs/:id/conversations/", () => HttpResponse.json(empty)),
    );
    const { user, location } = renderApp(`/sensei/${String(source.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Re-run against the current chatbot" }));
    expect(await screen.findByText(`Replay of #${String(source.id)}: 118 LLM calls saved`)).toBeInTheDocument();
    expect(location().pathname).toBe(`/sensei/${String(rerun.id)}`);
  });
});
