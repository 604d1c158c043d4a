import { screen, waitFor, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { Campaign } from "../../api/security/security";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { campaignRun, makeCampaign } from "../../testing/security-fixture";

function serveCampaigns(campaigns: Campaign[]) {
  const project = workspaceDb.addProject({ name: "Pizza" });
  const started: unknown[] = [];
  const saved: string[] = [];
  const run = campaignRun({ id: 91, status: "running", progress: { done: 1, total: 4 }, project: project.id });
  server.use(
    http.get("/api/projects/:pid/campaigns/", () =>
      HttpResponse.json({ count: campaigns.length, next: null, previous: null, results: campaigns }),
    ),
    http.get("/api/projects/:pid/campaigns/template/", () =>
      HttpResponse.json({ text: "name: my_campaign\nattacks:\n  - name: amnesia\n" }),
    ),
    http.post("/api/projects/:pid/campaigns/validate/", () =>
      HttpResponse.json({ valid: true, name: "my_campaign", problems: [] }),
    ),
    http.post("/api/projects/:pid/campaigns/", async ({ request }) => {
      const body = (await request.json()) as { text: string };
      saved.push(body.text);
      const created = makeCampaign(50, "my_campaign");
      campaigns.push(created);
      return HttpResponse.json(created, { status: 201 });
    }),
    http.post("/api/projects/:pid/campaigns/:id/plan/", () =>
      HttpResponse.json({
        attempts: 6,
        llm_calls_at_most: 0,
        model: null,
        estimated_cost_usd: 0,
        seed: 3,
        attacks: [],
      }),
    ),
    http.get("/api/projects/:pid/runs/", ({ request }) => {
      const kind = new URL(request.url).searchParams.get("kind");
      const results =
        kind === "security"
          ? [campaignRun({ project: project.id })]
          : kind === "tracer"
            ? [campaignRun({ id: 5, kind: "tracer", project: project.id })]
            : [];
      return HttpResponse.json({ count: results.length, next: null, previous: null, results });
    }),
    http.post("/api/projects/:pid/runs/", async ({ request }) => {
      started.push(await request.json());
      return HttpResponse.json(run, { status: 201 });
    }),
    http.get("/api/runs/91/", () => HttpResponse.json(run)),
    http.get("/api/runs/91/events/", () => HttpResponse.json({ results: [], next_after: 0 })),
  );
  return { project, started, saved };
}

describe("security page", () => {
  it("lists the campaigns and the campaign runs with their breaches", async () => {
    const served = serveCampaigns([makeCampaign(1, "pizza_security"), makeCampaign(2, "broken", false)]);
    renderApp(`/security?project=${String(served.project.id)}`, { loggedIn: true });

    const table = await screen.findByRole("table", { name: "Campaigns" });
    expect(within(table).getByText("pizza_security")).toBeInTheDocument();
    expect(within(table).getByText("1 error")).toBeInTheDocument();
    expect(within(table).getByRole("button", { name: "Run broken" })).toBeDisabled();
    const runs = await screen.findByRole("table", { name: "Campaign runs" });
    const row = within(runs).getByRole("link", { name: "#77" }).closest("tr");
    expect(row).toHaveTextContent("pizza_security");
    expect(row).toHaveTextContent("3 / 3");
    expect(within(runs).getByRole("link", { name: "#77" })).toHaveAttribute("href", "/security/runs/77");
  });

  it("starts a campaign with its plan shown first, then follows the run", async () => {
    const served = serveCampaigns([makeCampaign(1, "pizza_security")]);
    const { user } = renderApp(`/security?project=${String(served.project.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Run pizza_security" }));
    const dialog = await screen.findByRole("dialog", { name: "Run pizza_security" });
    const plan = await within(dialog).findByRole("list", { name: "What the campaign will do" });
    expect(plan).toHaveTextContent("6 attempts");
    expect(plan).toHaveTextContent("No LLM call");
    await user.type(within(dialog).getByRole("textbox", { name: "Seed" }), "12");
    await user.click(within(dialog).getByRole("button", { name: "Start campaign" }));

    await waitFor(() => {
      expect(served.started).toEqual([{ kind: "security", campaign: 1, concurrency: 4, seed: 12 }]);
    });
    expect(await within(dialog).findByRole("link", { name: /run page/i })).toHaveAttribute("href", "/security/runs/91");
  });

  it("starts a campaign with `from:` from the TRACER run picked", async () => {
    const campaign = { ...makeCampaign(1, "deep"), text: "name: deep\nfrom: all_states\nattacks: [{name: amnesia}]\n" };
    const served = serveCampaigns([campaign, makeCampaign(2, "shallow")]);
    const { user } = renderApp(`/security?project=${String(served.project.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Run shallow" }));
    let dialog = await screen.findByRole("dialog", { name: "Run shallow" });
    expect(within(dialog).queryByRole("combobox", { name: "TRACER run to attack from" })).not.toBeInTheDocument();
    const firstTurn = await within(dialog).findByRole("list", { name: "What the campaign will do" });
    expect(firstTurn).not.toHaveTextContent(/per state/);
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));

    await user.click(await screen.findByRole("button", { name: "Run deep" }));
    dialog = await screen.findByRole("dialog", { name: "Run deep" });
    // The plan counts one starting point: from TRACER's states, it says its figures are per state.
    const perState = await within(dialog).findByRole("list", { name: "What the campaign will do" });
    expect(perState).toHaveTextContent(/attempts? per state/);
    await user.click(within(dialog).getByRole("combobox", { name: "TRACER run to attack from" }));
    await user.click(await screen.findByRole("option", { name: "TRACER run #5", hidden: true }));
    await user.click(within(dialog).getByRole("button", { name: "Start campaign" }));
    await waitFor(() => {
      expect(served.started).toEqual([{ kind: "security", campaign: 1, concurrency: 4, tracer: 5 }]);
    });
  });

  it("writes a new campaign from the template with the YAML editor", async () => {
    const served = serveCampaigns([]);
    const { user } = renderApp(`/security?project=${String(served.project.id)}`, { loggedIn: true });

    expect(await screen.findByText("No campaign yet")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "New campaign" }));
    expect(await screen.findByText("No problems found.", undefined, { timeout: 5000 })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save campaign" }));
    await waitFor(() => {
      expect(served.saved).toEqual(["name: my_campaign\nattacks:\n  - name: amnesia\n"]);
    });
  }, 15_000);
});
