import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { BENCH_JSON, benchRun } from "../../testing/bench-fixture";

describe("public bench page", () => {
  it("shows a public project's bench to a visitor, read-only", async () => {
    const run = benchRun({ id: 52, is_owner: false, owner_name: "Ada L." });
    server.use(
      http.get("/api/runs/52/", () => HttpResponse.json(run)),
      http.get("/api/runs/52/artefacts/bench/", () =>
        HttpResponse.json({ name: "bench", content: BENCH_JSON, created_at: run.finished_at }),
      ),
      http.get("/api/runs/52/events/", () => HttpResponse.json({ next_after: 0, results: [] })),
    );
    const { user } = renderApp("/public/bench/52");

    expect(await screen.findByRole("heading", { level: 1, name: "Bench run #52" })).toBeInTheDocument();
    expect(screen.getByText("A public project's run: read-only.")).toBeInTheDocument();
    expect(await screen.findByRole("group", { name: "Mutation score" })).toHaveTextContent("66.7%");
    expect(screen.getByRole("link", { name: "Bike shop" })).toHaveAttribute("href", "/public/projects/7");
    expect(screen.queryByRole("button", { name: "Delete run" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Start a bench" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Log in" })).toBeInTheDocument();

    // The log, without the owner's Cancel.
    await user.click(screen.getByRole("tab", { name: "Log" }));
    expect(await screen.findByRole("status", { name: "Run progress" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel run" })).not.toBeInTheDocument();

    await user.click(screen.getByRole("tab", { name: "Mutants" }));
    const table = await screen.findByRole("table", { name: "Mutants" });
    expect(within(table).getByText("delete-fallback-1").closest("tr")).toHaveAttribute("data-status", "live");
  });
});
