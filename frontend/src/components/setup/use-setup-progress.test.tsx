import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

async function step(name: RegExp) {
  const steps = await screen.findByRole("list", { name: "Setup steps" });
  const item = within(steps)
    .getAllByRole("listitem")
    .find((candidate) => within(candidate).queryByRole("link", { name }) !== null);
  if (item === undefined) throw new Error(`no step ${String(name)}`);
  return item;
}

describe("setup guide", () => {
  it("does not count a key whose last test failed, and says why", async () => {
    workspaceDb.addKey({ name: "Broken", last_check_ok: false, last_check_message: "401 Unauthorized" });
    renderApp("/setup", { loggedIn: true });

    const key = await step(/Add an LLM API key/);
    expect(within(key).getByText("next")).toBeInTheDocument();
    expect(key).toHaveTextContent("The last test of Broken failed");
    expect(await screen.findByText("0 of 5 steps done")).toBeInTheDocument();
  });

  it("counts a key that works, or that was not tested yet", async () => {
    workspaceDb.addKey({ name: "Broken", last_check_ok: false });
    workspaceDb.addKey({ name: "Fresh", last_check_ok: null });
    renderApp("/setup", { loggedIn: true });
    expect(within(await step(/Add an LLM API key/)).getByText("done")).toBeInTheDocument();
  });

  it("counts a connector only once a test of its current settings passed", async () => {
    workspaceDb.addKey({ last_check_ok: true });
    const typo = workspaceDb.addConnector({ name: "Typo bot", updated_at: "2026-03-14T09:00:00Z" });
    workspaceDb.addConnectorTest(typo.id, false);
    const { unmount } = renderApp("/setup", { loggedIn: true });
    let connector = await step(/Connect your chatbot/);
    expect(within(connector).getByText("next")).toBeInTheDocument();
    expect(connector).toHaveTextContent("The last connection test of Typo bot failed");
    expect(within(screen.getByRole("main")).getByRole("link", { name: "Connect your chatbot" })).toHaveAttribute(
      "href",
      `/connectors/${String(typo.id)}`,
    );
    unmount();

    workspaceDb.addConnectorTest(typo.id, true, "2026-03-14T11:00:00Z");
    renderApp("/setup", { loggedIn: true });
    connector = await step(/Connect your chatbot/);
    expect(within(connector).getByText("done")).toBeInTheDocument();
  });

  it("does not count a connector never tested since it was last saved", async () => {
    const edited = workspaceDb.addConnector({ name: "Untested bot", updated_at: "2026-03-14T09:00:00Z" });
    // This test passed before the connector was edited: it says nothing about its current settings.
    workspaceDb.addConnectorTest(edited.id, true, "2026-03-14T08:00:00Z");
    renderApp("/setup", { loggedIn: true });
    const connector = await step(/Connect your chatbot/);
    expect(within(connector).queryByText("done")).toBeNull();
    expect(connector).toHaveTextContent("Untested bot has not passed a connection test yet");
  });
});
