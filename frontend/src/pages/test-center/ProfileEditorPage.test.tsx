import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

function seedProject() {
  workspaceDb.addKey();
  workspaceDb.addConnector();
  return workspaceDb.addProject();
}

describe("profile editor", () => {
  it("shows the server's problems inline and in a list", async () => {
    const project = seedProject();
    const profile = workspaceDb.addProfile(project.id, { text: "test_name: pizza\noops: 1\n" });
    renderApp(`/projects/${String(project.id)}/profiles/${String(profile.id)}`, { loggedIn: true });

    const problems = await screen.findByRole("region", { name: "Problems" }, { timeout: 5000 });
    expect(within(problems).getByText("unknown key `oops`")).toBeInTheDocument();
    expect(within(problems).getByRole("button", { name: "Go to Line 2, column 1" })).toBeInTheDocument();
    expect(within(problems).getByText(/Known keys here/)).toBeInTheDocument();
    // The same problem is marked in the editor itself.
    await waitFor(() => {
      expect(document.querySelector(".cm-lintRange-error")).not.toBeNull();
    });
    expect(screen.getByText("has errors")).toBeInTheDocument();
  }, 15_000);

  it("saves a new profile from the template and previews its plan", async () => {
    const project = seedProject();
    const { user, location } = renderApp(`/projects/${String(project.id)}/profiles/new`, { loggedIn: true });

    expect(await screen.findByText("No problems found.", undefined, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByText("Save the profile to preview its plan.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save" }));

    await waitFor(() => {
      expect(location().pathname).toMatch(/\/profiles\/\d+$/);
    });
    // The saved profile opens in its own editor; its plan can be previewed once it is known to be valid.
    await screen.findByRole("button", { name: "Delete" }, { timeout: 5000 });
    await waitFor(
      () => {
        expect(screen.getByRole("button", { name: "Preview plan" })).toBeEnabled();
      },
      { timeout: 5000 },
    );
    const preview = screen.getByRole("button", { name: "Preview plan" });
    await user.click(preview);
    const table = await screen.findByRole("table", { name: "Planned conversations" });
    expect(within(table).getByText("large")).toBeInTheDocument();
    expect(screen.getByText("$0.0123")).toBeInTheDocument();
  }, 15_000);
});
