import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

describe("projects list", () => {
  it("invites to create the first project when there is none", async () => {
    renderApp("/projects", { loggedIn: true });

    expect(await screen.findByText("No projects yet")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "New project" })).toHaveAttribute("href", "/projects/new");
  });

  it("shows each project's connector, models and budget, and deletes one only after confirmation", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector({ name: "Pizza bot" });
    workspaceDb.addProject({ name: "Pizza", public: true, budget_usd: "5.00" });
    workspaceDb.addProject({ name: "Pizza (old)", exploration_model: "" });
    const { user } = renderApp("/projects", { loggedIn: true });

    const row = (await screen.findByRole("link", { name: "Pizza" })).closest("tr");
    if (row === null) throw new Error("no row for Pizza");
    expect(row).toHaveTextContent("public");
    expect(row).toHaveTextContent("Pizza bot");
    expect(row).toHaveTextContent("Exploration: gpt-4o-mini");
    expect(row).toHaveTextContent("$5.00");
    expect(within(row).getByRole("link", { name: "Test center" })).toHaveAttribute(
      "href",
      `/projects/${String(workspaceDb.state.projects[0]?.id)}`,
    );

    await user.click(screen.getByRole("button", { name: "Delete Pizza (old)" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete Pizza (old)?" });
    expect(dialog).toHaveTextContent("Its profiles, rules, runs and reports are deleted with it.");
    await user.click(within(dialog).getByRole("button", { name: "Delete project" }));

    await waitFor(() => {
      expect(screen.queryByRole("link", { name: "Pizza (old)" })).not.toBeInTheDocument();
    });
    expect(workspaceDb.state.projects.map((p) => p.name)).toEqual(["Pizza"]);
  });

  it("pages through more projects than fit on one page", async () => {
    for (let index = 1; index <= 26; index += 1) workspaceDb.addProject({ name: `Bot ${String(index)}` });
    const { user } = renderApp("/projects", { loggedIn: true });

    expect(await screen.findByRole("link", { name: "Bot 25" })).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Bot 26" })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "2" }));

    expect(await screen.findByRole("link", { name: "Bot 26" })).toBeInTheDocument();
  });
});
