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

  it("does not save a project whose key has no exploration model, and says which model is missing", async () => {
    workspaceDb.addConnector({ name: "Pizza bot" });
    workspaceDb.addKey({ name: "Team" });
    const { user } = renderApp("/projects/new", { loggedIn: true });

    await user.type(await screen.findByRole("textbox", { name: /^Name/ }), "Pizza");
    await user.click(screen.getByRole("combobox", { name: /Connector/ }));
    await user.click(await screen.findByRole("option", { name: /Pizza bot/, hidden: true }));
    await user.click(screen.getByRole("combobox", { name: /LLM key/ }));
    await user.click(await screen.findByRole("option", { name: /Team/, hidden: true }));
    await user.click(screen.getByRole("button", { name: "Create project" }));

    expect(await screen.findByText(/Choose the exploration model/)).toBeInTheDocument();
    expect(screen.getByRole("combobox", { name: /Exploration model/ })).toHaveAttribute("aria-invalid", "true");
    expect(workspaceDb.state.projects).toHaveLength(0);
  }, 30_000);

  it("shows the public link, with a copy button, as soon as the project is made public", async () => {
    workspaceDb.addConnector();
    workspaceDb.addKey();
    const project = workspaceDb.addProject({ public: false });
    const { user } = renderApp(`/projects/${String(project.id)}/edit`, { loggedIn: true });

    expect(await screen.findByRole("switch", { name: /Public results/ })).not.toBeChecked();
    expect(screen.queryByRole("textbox", { name: "Public link" })).toBeNull();
    await user.click(screen.getByRole("switch", { name: /Public results/ }));

    expect(screen.getByRole("textbox", { name: "Public link" })).toHaveValue(
      `${window.location.origin}/public/projects/${String(project.id)}`,
    );
    expect(screen.getByRole("button", { name: "Copy link" })).toBeInTheDocument();
    expect(screen.getByText("Save the project to publish it at this link.")).toBeInTheDocument();
  });
});
