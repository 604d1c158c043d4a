import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

describe("project form", () => {
  it("offers the key's live models, accepts free text, and opens the new project's test center", async () => {
    workspaceDb.addConnector({ name: "Pizza bot" });
    workspaceDb.addKey({ name: "Team" });
    const { user, location } = renderApp("/projects/new", { loggedIn: true });

    await user.type(await screen.findByRole("textbox", { name: /^Name/ }), "Pizza");
    await user.click(screen.getByRole("combobox", { name: /Connector/ }));
    await user.click(await screen.findByRole("option", { name: /Pizza bot/, hidden: true }));
    await user.click(screen.getByRole("combobox", { name: /LLM key/ }));
    await user.click(await screen.findByRole("option", { name: /Team/, hidden: true }));

    expect(await screen.findByText("live model list", undefined, { timeout: 5000 })).toBeInTheDocument();
    await user.click(screen.getByRole("combobox", { name: "Exploration model" }));
    expect((await screen.findAllByRole("option", { name: "fake-large", hidden: true })).length).toBeGreaterThan(0);
    await user.paste("fake-large");
    await user.click(screen.getByRole("combobox", { name: "Profile model" }));
    await user.paste("my-own-model");
    await user.click(screen.getByRole("button", { name: "Create project" }));

    await waitFor(() => {
      expect(location().pathname).toMatch(/^\/projects\/\d+$/);
    });
    expect(workspaceDb.state.projects[0]).toMatchObject({
      name: "Pizza",
      exploration_model: "fake-large",
      profile_model: "my-own-model",
      budget_usd: null,
      public: false,
    });
  }, 30_000);
});
