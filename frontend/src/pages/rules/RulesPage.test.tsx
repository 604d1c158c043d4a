import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { Rule } from "../../api/runs/rule-results";
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

/** `makeRule` with problems: the server stores an invalid rule, whose `active:` key may still say true. */
function invalidRule(id: number, name: string, problems: number): Rule {
  const problem = {
    severity: "error" as const,
    message: "unknown field",
    line: 2,
    column: 1,
    path: "when",
    hint: null,
  };
  return { ...makeRule(id, name), valid: false, problems: Array.from({ length: problems }, () => problem) };
}

/** A project with two rules (or these), served by handlers that delete for real (or refuse, when told to). */
function serveRules({
  refuseDelete = false,
  initial = [makeRule(1, "price_reported"), makeRule(2, "greets_first")],
} = {}) {
  const project = workspaceDb.addProject({ name: "Pizza" });
  let rules = initial;
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

describe("rules with problems", () => {
  it("counts one problem in the singular and several in the plural", async () => {
    const served = serveRules({
      initial: [makeRule(1, "price_reported"), invalidRule(2, "greets_first", 1), invalidRule(3, "says_bye", 3)],
    });
    renderApp(`/rules?project=${String(served.project.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Rules" });
    const row = (name: string) => within(table).getByText(name).closest("tr") as HTMLElement;
    expect(within(row("greets_first")).getByText("1 problem")).toBeInTheDocument();
    expect(within(row("says_bye")).getByText("3 problems")).toBeInTheDocument();
    expect(within(row("price_reported")).getByText("valid")).toBeInTheDocument();
  }, 15_000);

  it("says an active rule with problems is left out, on its switch and in the check card", async () => {
    const served = serveRules({
      initial: [makeRule(1, "price_reported"), invalidRule(2, "greets_first", 1)],
    });
    renderApp(`/rules?project=${String(served.project.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Rules" });
    // The switch still shows the rule's `active:` key, and says it is not in effect and why.
    const broken = within(table).getByRole("switch", { name: "Active: greets_first" });
    expect(broken).toBeChecked();
    expect(broken).toHaveAccessibleDescription("Not in effect: fix its problem first.");
    expect(within(table).getByText("Not in effect: fix its problem first.")).toBeVisible();
    const fine = within(table).getByRole("switch", { name: "Active: price_reported" });
    expect(fine).not.toHaveAccessibleDescription(/not in effect/i);

    // The check card counts the rule that takes effect and names the one left out.
    expect(
      screen.getByText("Empty: the 1 active rule. Left out because it has problems: greets_first."),
    ).toBeInTheDocument();
  }, 15_000);

  it("says why nothing would be checked when every active rule has problems", async () => {
    const served = serveRules({ initial: [invalidRule(1, "price_reported", 2)] });
    renderApp(`/rules?project=${String(served.project.id)}`, { loggedIn: true });

    expect(
      await screen.findByText("Empty: the 0 active rules. Left out because it has problems: price_reported."),
    ).toBeInTheDocument();
  }, 15_000);
});
