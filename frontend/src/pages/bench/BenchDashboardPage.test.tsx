import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { benchRun } from "../../testing/bench-fixture";

function seedProjects() {
  workspaceDb.addKey();
  const pizza = workspaceDb.addConnector({ name: "Pizza bot", technology: "demo", params: { bot: "pizza" } });
  const rasa = workspaceDb.addConnector({
    name: "Shop assistant",
    technology: "rasa",
    params: { base_url: "http://rasa.example.com:5005" },
  });
  const mutant = workspaceDb.addConnector({
    name: "Broken pizza",
    technology: "demo",
    params: { bot: "pizza@repeat-loop-1" },
  });
  const project = workspaceDb.addProject({ name: "Pizza", connector: pizza.id });
  workspaceDb.addProject({ name: "Shop", connector: rasa.id });
  workspaceDb.addProject({ name: "Broken", connector: mutant.id });
  return project;
}

describe("bench dashboard", () => {
  it("lists bench runs with their figures, linked to the bench page", async () => {
    workspaceDb.addRun(benchRun({ id: 41 }));
    renderApp("/bench", { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Bench runs" });
    expect(within(table).getByRole("link", { name: "#41" })).toHaveAttribute("href", "/bench/41");
    const row = within(table).getByRole("link", { name: "#41" }).closest("tr");
    expect(row).toHaveTextContent("bike");
    expect(row).toHaveTextContent("2 of 3");
    expect(row).toHaveTextContent("66.7%");
    expect(row).toHaveTextContent("12.5%");
  });

  it("starts a bench on a built-in bot: the body sent, a field error from the server, then the run page", async () => {
    const project = seedProjects();
    const bodies: unknown[] = [];
    server.use(
      http.post("/api/projects/:pid/runs/", async ({ request, params }) => {
        bodies.push(await request.json());
        if (bodies.length === 1) {
          return HttpResponse.json(
            {
              detail: "Please correct the highlighted fields.",
              code: "invalid",
              fields: { kind: ["This project has no LLM key: choose one first."] },
            },
            { status: 400 },
          );
        }
        const run = workspaceDb.addRun({
          kind: "bench",
          status: "running",
          stage: "tracer",
          project: Number(params.pid),
          project_name: "Pizza",
        });
        return HttpResponse.json(run, { status: 201 });
      }),
    );
    const { user, location } = renderApp("/bench", { loggedIn: true });

    expect(await screen.findByText("No bench run yet")).toBeInTheDocument();
    const [start] = screen.getAllByRole("button", { name: "Start a bench" });
    if (start === undefined) throw new Error("no start button");
    await user.click(start);
    const dialog = await screen.findByRole("dialog", { name: "Start a bench" });

    // Only the project on an original built-in bot can be chosen; it is chosen already.
    const projectInput = await within(dialog).findByRole("combobox", { name: /Project/ });
    expect(projectInput).toHaveValue("Pizza — pizza");
    await user.click(projectInput);
    expect(await screen.findByRole("option", { name: "Shop (not a built-in bot)", hidden: true })).toHaveAttribute(
      "data-combobox-disabled",
      "true",
    );
    expect(screen.getByRole("option", { name: "Broken (not a built-in bot)", hidden: true })).toHaveAttribute(
      "data-combobox-disabled",
      "true",
    );
    await user.keyboard("{Escape}");

    const sessions = within(dialog).getByRole("textbox", { name: "TRACER sessions" });
    await user.clear(sessions);
    await user.type(sessions, "1");
    const turns = within(dialog).getByRole("textbox", { name: "Turns per session" });
    await user.clear(turns);
    await user.type(turns, "2");
    const repeats = within(dialog).getByRole("textbox", { name: "Repeats" });
    await user.clear(repeats);
    await user.type(repeats, "1");
    await user.click(within(dialog).getByRole("combobox", { name: "Mutation operators" }));
    await user.click(await screen.findByRole("option", { name: "wrong-price-formula", hidden: true }));
    await user.keyboard("{Escape}");
    await user.type(within(dialog).getByRole("textbox", { name: "Seed" }), "11");
    await user.click(within(dialog).getByRole("button", { name: "Start the bench" }));

    // The server's `kind` message belongs to the project that cannot run it.
    expect(await within(dialog).findByText("This project has no LLM key: choose one first.")).toBeInTheDocument();
    expect(within(dialog).getByRole("combobox", { name: /Project/ })).toHaveAttribute("aria-invalid", "true");
    expect(bodies[0]).toEqual({
      kind: "bench",
      sessions: 1,
      turns: 2,
      repeats: 1,
      mutants_per_operator: 1,
      concurrency: 4,
      operators: ["wrong-price-formula"],
      seed: 11,
    });

    await user.click(within(dialog).getByRole("button", { name: "Start the bench" }));
    // The run page is a lazy route: the location changes once its chunk is loaded, which takes a while in jsdom.
    await waitFor(
      () => {
        expect(location().pathname).toMatch(/^\/bench\/\d+$/);
      },
      { timeout: 10_000 },
    );
    expect(bodies).toHaveLength(2);
    expect(await screen.findByRole("heading", { level: 1, name: /^Bench run #\d+$/ })).toBeInTheDocument();
    expect(project.id).toBeGreaterThan(0);
  }, 30_000);

  it("explains which projects qualify when none does", async () => {
    workspaceDb.addKey();
    const rasa = workspaceDb.addConnector({ name: "Shop assistant", technology: "rasa", params: {} });
    workspaceDb.addProject({ name: "Shop", connector: rasa.id });
    const { user } = renderApp("/bench", { loggedIn: true });

    const [start] = await screen.findAllByRole("button", { name: "Start a bench" });
    if (start === undefined) throw new Error("no start button");
    await user.click(start);
    const dialog = await screen.findByRole("dialog", { name: "Start a bench" });
    expect(await within(dialog).findByText("No project on a built-in bot")).toBeInTheDocument();
    expect(within(dialog).getByRole("link", { name: "Create a demo connector" })).toHaveAttribute(
      "href",
      "/connectors/new",
    );
    expect(within(dialog).getByRole("button", { name: "Start the bench" })).toBeDisabled();
  });
});
