import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { Rule } from "../../api/rule-results";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";

function makeRule(id: number, name: string): Rule {
  return {
    id,
    name,
    text: `name: ${name}\n`,
    valid: true,
    problems: [],
    warnings: 0,
    created_at: "2026-03-14T09:26:53Z",
    updated_at: "2026-03-14T09:26:53Z",
    active: true,
  };
}

/** A project with two rules, served by handlers that delete for real (or refuse, when told to). */
function serveRules({ refuseDelete = false } = {}) {
  const project = workspaceDb.addProject({ name: "Pizza" });
  let rules = [makeRule(1, "price_reported"), makeRule(2, "greets_first")];
  server.use(
    http.get("/api/projects/:pid/rules/", () =>
      HttpResponse.json({ count: rules.length, next: null, previous: null, results: rules }),
    ),
    http.delete("/api/projects/:pid/rules/:id/", ({ params }) => {
      if (refuseDelete) return HttpResponse.json({ detail: "Rules are read-only today.", code: "x" }, { status: 409 });
      rules = rules.filter((rule) => rule.id !== Number(params.id));
      return new HttpResponse(null, { status: 204 });
    }),
    http.get("/api/projects/:pid/runs/", () =>
      HttpResponse.json({ count: 0, next: null, previous: null, results: [] }),
    ),
  );
  return { project, names: () => rules.map((rule) => rule.name) };
}

describe("rules list", () => {
  it("deletes a rule only after confirmation", async () => {
    const served = serveRules();
    const { user } = renderApp(`/rules?project=${String(served.project.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Rules" });
    await user.click(within(table).getByRole("button", { name: "Delete greets_first" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete greets_first?" });
    expect(dialog).toHaveTextContent("Past check results keep their copy of the rule.");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => {
      expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    });
    expect(served.names()).toEqual(["price_reported", "greets_first"]);

    await user.click(within(table).getByRole("button", { name: "Delete greets_first" }));
    await user.click(
      within(await screen.findByRole("dialog", { name: "Delete greets_first?" })).getByRole("button", {
        name: "Delete rule",
      }),
    );

    await waitFor(() => {
      expect(within(table).queryByText("greets_first")).not.toBeInTheDocument();
    });
    expect(within(table).getByText("price_reported")).toBeInTheDocument();
    expect(served.names()).toEqual(["price_reported"]);
  }, 15_000);

  it("keeps the rule and says why when the server refuses the delete", async () => {
    const served = serveRules({ refuseDelete: true });
    const { user } = renderApp(`/rules?project=${String(served.project.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Rules" });
    await user.click(within(table).getByRole("button", { name: "Delete price_reported" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete price_reported?" });
    await user.click(within(dialog).getByRole("button", { name: "Delete rule" }));

    expect(await within(dialog).findByText("Rules are read-only today.")).toBeInTheDocument();
    expect(within(table).getByText("price_reported")).toBeInTheDocument();
  }, 15_000);
});
