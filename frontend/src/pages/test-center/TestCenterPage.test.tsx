import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";
import { tracerResult } from "../../testing/results";

describe("test center", () => {
  it("groups profiles by origin and starts TRACER, showing its progress and log as text", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    workspaceDb.addProfile(project.id, { name: "by_hand" });
    workspaceDb.addProfile(project.id, { name: "found_by_tracer", origin: "tracer", source_run: 42 });
    workspaceDb.addProfile(project.id, { name: "broken", valid: false });
    const { user, location } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    const manual = await screen.findByRole("region", { name: /Written and uploaded/ });
    expect(within(manual).getByRole("link", { name: "by_hand" })).toBeInTheDocument();
    expect(within(manual).getByRole("checkbox", { name: "Select broken" })).toBeDisabled();
    expect(screen.getByRole("region", { name: /From TRACER run #42/ })).toHaveTextContent("found_by_tracer");

    await user.click(screen.getByRole("button", { name: "Explore with TRACER" }));
    const dialog = await screen.findByRole("dialog", { name: "Explore with TRACER" });
    await user.click(within(dialog).getByRole("button", { name: "Start exploring" }));

    expect(await within(dialog).findByRole("status", { name: "Run progress" })).toHaveTextContent("Stage: Exploring");
    const runId = Number(new URLSearchParams(location().search).get("run"));
    expect(runId).toBeGreaterThan(0);
    workspaceDb.addEvents(runId, [
      {
        type: "message",
        created_at: "2026-03-14T09:30:00Z",
        data: { session: 1, role: "chatbot", text: "<script>x()</script>Hi!" },
      },
      {
        type: "functionality",
        created_at: "2026-03-14T09:30:01Z",
        data: { name: "order_pizza", description: "Orders a pizza" },
      },
    ]);
    const log = await within(dialog).findByRole("list", { name: "Run log" }, { timeout: 5000 });
    expect(within(log).getByText("<script>x()</script>Hi!")).toBeInTheDocument();
    expect(within(log).getByText("order_pizza — Orders a pizza")).toBeInTheDocument();
    expect(log.querySelector("script")).toBeNull();
  }, 15_000);

  it("says why a run cannot start and links to where it is fixed, in the page and in the dialogs", async () => {
    workspaceDb.addConnector();
    const project = workspaceDb.addProject({ llm_key: null });
    workspaceDb.addProfile(project.id, { name: "by_hand" });
    const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });
    const settings = `/projects/${String(project.id)}/edit`;

    const banner = await screen.findByRole("status", { name: "Runs cannot start yet" });
    expect(banner).toHaveTextContent("has no LLM key");
    expect(within(banner).getByRole("link", { name: "Open the project's settings" })).toHaveAttribute("href", settings);

    const [headerButton] = await screen.findAllByRole("button", { name: "Explore with TRACER" });
    if (headerButton === undefined) throw new Error("no TRACER button");
    await user.click(headerButton);
    const tracer = await screen.findByRole("dialog", { name: "Explore with TRACER" });
    expect(within(tracer).getByText(/has no LLM key/)).toBeInTheDocument();
    expect(within(tracer).getByRole("link", { name: "Open the project's settings" })).toHaveAttribute("href", settings);
    expect(within(tracer).getByRole("button", { name: "Start exploring" })).toBeDisabled();
    await user.click(within(tracer).getByRole("button", { name: "Cancel" }));

    await user.click(await screen.findByRole("checkbox", { name: "Select by_hand" }));
    await user.click(screen.getByRole("button", { name: "Run SENSEI" }));
    const sensei = await screen.findByRole("dialog", { name: "Run SENSEI" });
    expect(within(sensei).getByRole("link", { name: "Open the project's settings" })).toHaveAttribute("href", settings);
    expect(within(sensei).getByRole("button", { name: "Start SENSEI" })).toBeDisabled();
  });

  it("names a missing exploration model as the problem", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject({ exploration_model: "" });
    renderApp(`/projects/${String(project.id)}`, { loggedIn: true });
    expect(await screen.findByText(/has no exploration model/)).toBeInTheDocument();
  });

  it("links the run dialog to the run's report when it ends, and shows a TRACER run that found nothing as a warning", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    const { user, location } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    const [headerButton] = await screen.findAllByRole("button", { name: "Explore with TRACER" });
    if (headerButton === undefined) throw new Error("no TRACER button");
    await user.click(headerButton);
    const dialog = await screen.findByRole("dialog", { name: "Explore with TRACER" });
    await user.click(within(dialog).getByRole("button", { name: "Start exploring" }));
    expect(await within(dialog).findByRole("link", { name: "Open the run page" })).toBeInTheDocument();

    const runId = Number(new URLSearchParams(location().search).get("run"));
    const stored = workspaceDb.state.runs.get(runId);
    if (stored === undefined) throw new Error("no run");
    stored.finished = {
      status: "succeeded",
      stage: "done",
      result: tracerResult(),
    };

    const report = await within(dialog).findByRole("link", { name: "Open the report" }, { timeout: 8000 });
    expect(report).toHaveAttribute("href", `/tracer/${String(runId)}`);
    expect(within(dialog).getByText("found nothing")).toBeInTheDocument();
    expect(within(dialog).queryByText("succeeded")).toBeNull();
    expect(within(dialog).getByRole("alert")).toHaveTextContent("TRACER found no functionality");
  }, 20_000);

  it("shows a public project's link with a copy button", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject({ public: true });
    renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    const card = await screen.findByRole("region", { name: "This project is public" });
    expect(within(card).getByRole("textbox", { name: "Public link" })).toHaveValue(
      `${window.location.origin}/public/projects/${String(project.id)}`,
    );
    expect(within(card).getByRole("button", { name: "Copy link" })).toBeInTheDocument();
    expect(within(card).getByRole("link", { name: "Open the public page" })).toHaveAttribute(
      "href",
      `/public/projects/${String(project.id)}`,
    );
  });

  it("uploads YAML files and lists what was stored", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    expect(await screen.findByText("No profiles yet")).toBeInTheDocument();
    const good = new File(["test_name: uploaded_one\n"], "one.yaml", { type: "application/x-yaml" });
    await user.upload(screen.getByTestId("file-input"), good);
    // (jsdom's multipart encoding loses the file's name and content, so only the outcome is checked here.)
    expect(await screen.findByText("1 profile uploaded")).toBeInTheDocument();
    expect(workspaceDb.state.profiles).toHaveLength(1);
    expect(await screen.findByRole("region", { name: /Written and uploaded/ })).toBeInTheDocument();
  });
});
