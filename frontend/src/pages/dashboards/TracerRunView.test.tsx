import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { tracerResult } from "../../testing/results";

describe("TRACER run page", () => {
  it("shows a run that found nothing as a warning with its reasons, and an unpriced cost as not priced", async () => {
    const project = workspaceDb.addProject();
    const run = workspaceDb.addRun({
      kind: "tracer",
      status: "succeeded",
      project: project.id,
      project_name: project.name,
      params: { sessions: 2, turns: 4 },
      result: tracerResult(),
      usage: { calls: 9, prompt_tokens: 900, completion_tokens: 90, cost_usd: 0, failed_calls: 0, unpriced_calls: 9 },
      cost_usd: 0,
    });
    server.use(
      http.get(`/api/runs/${String(run.id)}/artefacts/:name/`, () =>
        HttpResponse.json({ detail: "Not found.", code: "not_found" }, { status: 404 }),
      ),
    );
    renderApp(`/tracer/${String(run.id)}`, { loggedIn: true });

    const warning = await screen.findByRole("alert");
    expect(warning).toHaveTextContent("TRACER found no functionality");
    expect(warning).toHaveTextContent("test its connector");
    expect(within(warning).getByRole("link", { name: "Back to the test center" })).toHaveAttribute(
      "href",
      `/projects/${String(project.id)}`,
    );
    expect(screen.getByText("found nothing")).toBeInTheDocument();
    expect(screen.queryByText("succeeded")).toBeNull();

    expect(screen.getByText("not priced")).toBeInTheDocument();
    expect(screen.queryByText("$0.0000")).toBeNull();
  });
});
