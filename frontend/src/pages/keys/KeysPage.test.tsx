import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

describe("LLM keys", () => {
  it("says so when there are no keys, and adds an OpenAI-compatible key with its base URL", async () => {
    const { user } = renderApp("/keys", { loggedIn: true });

    expect(await screen.findByText("No keys yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Add key" }));
    const dialog = await screen.findByRole("dialog", { name: "Add an LLM API key" });
    await user.type(within(dialog).getByLabelText("Name"), "Local server");
    await user.click(within(dialog).getByLabelText("Provider"));
    await user.click(await screen.findByRole("option", { name: "OpenAI-compatible server", hidden: true }));
    await user.click(within(dialog).getByRole("button", { name: "Add key" }));
    // The base URL appears for this provider and is required.
    expect(await within(dialog).findByText("An OpenAI-compatible server needs its base URL.")).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText("Base URL"), "http://127.0.0.1:8093/v1");
    await user.type(within(dialog).getByLabelText("API key"), "sk-local-1234");
    await user.click(within(dialog).getByRole("button", { name: "Add key" }));

    const row = (await screen.findByRole("cell", { name: "Local server" })).closest("tr");
    expect(row).toHaveTextContent("openai-compatible");
    expect(row).toHaveTextContent("http://127.0.0.1:8093/v1");
    expect(row).toHaveTextContent("…1234");
    expect(row).not.toHaveTextContent("sk-local-1234");
  }, 15_000);

  it("shows the server's message under the field it is about", async () => {
    workspaceDb.addKey({ name: "Team" });
    const { user } = renderApp("/keys", { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Add key" }));
    const dialog = await screen.findByRole("dialog", { name: "Add an LLM API key" });
    await user.type(within(dialog).getByLabelText("Name"), "team");
    await user.click(within(dialog).getByLabelText("Provider"));
    await user.click(await screen.findByRole("option", { name: "OpenAI", hidden: true }));
    await user.type(within(dialog).getByLabelText("API key"), "sk-abc");
    await user.click(within(dialog).getByRole("button", { name: "Add key" }));

    expect(await within(dialog).findByText("You already have a key with this name.")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Name")).toHaveAccessibleDescription("You already have a key with this name.");
  });

  it("tests a key and shows the outcome when the run has finished", async () => {
    workspaceDb.addKey({ name: "Team" });
    const { user } = renderApp("/keys", { loggedIn: true });

    expect(await screen.findByText("Not tested yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Test Team" }));

    // The run is polled every two seconds until it has finished.
    expect(await screen.findByText("Team works", undefined, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getAllByText("The key works (3 models).").length).toBeGreaterThan(0);
    expect(await screen.findByText("works")).toBeInTheDocument();
  });

  it("renames a key, and deletes one only after confirmation", async () => {
    workspaceDb.addKey({ name: "Team" });
    const { user } = renderApp("/keys", { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Rename Team" }));
    const rename = await screen.findByRole("dialog", { name: "Rename Team" });
    await user.clear(within(rename).getByLabelText("Name"));
    await user.type(within(rename).getByLabelText("Name"), "Research");
    await user.click(within(rename).getByRole("button", { name: "Rename" }));
    expect(await screen.findByRole("cell", { name: "Research" })).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Delete Research" }));
    const confirm = await screen.findByRole("dialog", { name: "Delete Research?" });
    await user.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(workspaceDb.state.keys).toHaveLength(1);

    await user.click(screen.getByRole("button", { name: "Delete Research" }));
    await user.click(
      within(await screen.findByRole("dialog", { name: "Delete Research?" })).getByRole("button", {
        name: "Delete key",
      }),
    );
    expect(await screen.findByText("No keys yet")).toBeInTheDocument();
    await waitFor(() => {
      expect(workspaceDb.state.keys).toHaveLength(0);
    });
  });
});
