import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";

function rowOf(name: string) {
  const row = screen.getByRole("cell", { name }).closest("tr");
  if (row === null) throw new Error(`no row for ${name}`);
  return row;
}

describe("connectors list", () => {
  it("invites to create the first connector when there is none", async () => {
    renderApp("/connectors", { loggedIn: true });

    expect(await screen.findByText("No connectors yet")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "New connector" })).toHaveAttribute("href", "/connectors/new");
    expect(screen.queryByRole("table")).not.toBeInTheDocument();
  });

  it("says when the list cannot be read, and reads it again on request", async () => {
    workspaceDb.addConnector({ name: "Pizza bot" });
    server.use(
      http.get(
        "/api/connectors/",
        () => HttpResponse.json({ detail: "The database is asleep.", code: "x" }, { status: 503 }),
        {
          once: true,
        },
      ),
    );
    const { user } = renderApp("/connectors", { loggedIn: true });

    expect(await screen.findByText("Could not load your connectors")).toBeInTheDocument();
    expect(screen.getByText("The database is asleep.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Try again" }));

    expect(await screen.findByRole("cell", { name: "Pizza bot" })).toBeInTheDocument();
  });

  it("lists each connector's settings and users, and deletes one only after confirmation", async () => {
    workspaceDb.addConnector({ name: "Pizza bot", projects: ["Pizza"] }, { token: "s3cret" });
    workspaceDb.addConnector({ name: "Bike bot", params: { bot: "bike" } });
    const { user } = renderApp("/connectors", { loggedIn: true });

    await screen.findByRole("cell", { name: "Pizza bot" });
    expect(rowOf("Pizza bot")).toHaveTextContent("bot: pizza");
    expect(rowOf("Pizza bot")).toHaveTextContent("Secrets set: token");
    expect(rowOf("Pizza bot")).toHaveTextContent("Pizza");
    expect(rowOf("Pizza bot")).not.toHaveTextContent("s3cret");

    // A connector in use: the dialog says what to do first; backing out deletes nothing.
    await user.click(screen.getByRole("button", { name: "Delete Pizza bot" }));
    const inUse = await screen.findByRole("dialog", { name: "Delete Pizza bot?" });
    expect(inUse).toHaveTextContent("It is used by Pizza; change or delete those projects first.");
    await user.click(within(inUse).getByRole("button", { name: "Cancel" }));
    await waitFor(() => {
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    });

    await user.click(screen.getByRole("button", { name: "Delete Bike bot" }));
    const unused = await screen.findByRole("dialog", { name: "Delete Bike bot?" });
    expect(unused).toHaveTextContent("Its settings and stored secrets are removed. This cannot be undone.");
    await user.click(within(unused).getByRole("button", { name: "Delete connector" }));

    await waitFor(() => {
      expect(screen.queryByRole("cell", { name: "Bike bot" })).not.toBeInTheDocument();
    });
    expect(screen.getByRole("cell", { name: "Pizza bot" })).toBeInTheDocument();
    expect(workspaceDb.state.connectors.map((c) => c.name)).toEqual(["Pizza bot"]);
  });

  it("shows why the server refused a delete, and forgets it once the dialog is closed", async () => {
    workspaceDb.addConnector({ name: "Pizza bot" });
    workspaceDb.addConnector({ name: "Bike bot" });
    server.use(
      http.delete("/api/connectors/:id/", () =>
        HttpResponse.json({ detail: "A run is using this connector.", code: "conflict" }, { status: 409 }),
      ),
    );
    const { user } = renderApp("/connectors", { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Delete Pizza bot" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete Pizza bot?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete connector" }));
    expect(await within(dialog).findByText("A run is using this connector.")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => {
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    });

    await user.click(screen.getByRole("button", { name: "Delete Bike bot" }));
    const next = await screen.findByRole("dialog", { name: "Delete Bike bot?" });
    expect(within(next).queryByText("A run is using this connector.")).not.toBeInTheDocument();
  });
});
