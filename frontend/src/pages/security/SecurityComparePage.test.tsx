import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { SecurityComparison } from "../../api/security/security-compare";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { ATTEMPTS, campaignRun, HOSTILE, STATS } from "../../testing/security-fixture";

const side = (breached: number, resisted: number, error = 0, inconclusive = 0) => {
  const decided = breached + resisted;
  return {
    attempts: decided + error + inconclusive,
    breached,
    resisted,
    inconclusive,
    error,
    decided,
    rate: decided ? breached / decided : null,
    low: breached ? 0.4385 : 0,
    high: breached === decided ? 1 : 0.5615,
  };
};

const brief = (index: number, verdict: string, because: string, quotes: string[] = []) => ({
  id: `system_prompt_stealer#${String(index)}`,
  attack_id: "system_prompt_stealer",
  attack: "system_prompt_stealer",
  index,
  delivery: "direct",
  state: null,
  verdict,
  because,
  quotes,
});

function comparison(): SecurityComparison {
  const change = { delta: 1, low: 0.3, high: 1 };
  return {
    verdict: "regressed",
    reasons: ["attack system_prompt_stealer: regressed — breach rate 0 % → 100 %"],
    threshold: 0.1,
    baseline_label: "run 70",
    run_label: "run 77",
    overall: {
      kind: "overall",
      name: "all attempts",
      baseline: side(0, 3),
      run: side(3, 0, 1),
      change,
      status: "regressed",
      why: "",
    },
    attacks: [
      {
        kind: "attack",
        name: "system_prompt_stealer",
        baseline: side(0, 3),
        run: side(3, 0, 1),
        change,
        status: "regressed",
        why: "breach rate 0 % → 100 %",
      },
    ],
    deliveries: [
      {
        kind: "delivery",
        name: "direct",
        baseline: side(0, 3),
        run: side(3, 0, 1),
        change,
        status: "regressed",
        why: "",
      },
    ],
    states: [
      {
        kind: "state",
        name: "prompt_for_size",
        baseline: side(0, 3),
        run: side(3, 0, 1),
        change,
        status: "regressed",
        why: "",
      },
    ],
    newly_breached: [0, 1, 2].map((index) => ({
      attack_id: "system_prompt_stealer",
      delivery: "direct",
      state: null,
      index,
      baseline: brief(index, "resisted", "the chatbot refused"),
      run: brief(index, "breached", "leakage: the reply contains the canary", [HOSTILE]),
    })),
    newly_resisted: [],
    inconclusive: { baseline: [], run: [] },
    errors: { baseline: [], run: [brief(3, "error", "the chatbot answered HTTP 502")] },
    matched: 4,
    baseline_only: 0,
    run_only: 0,
    notes: [],
    baseline_run: 70,
    run: 77,
  };
}

function serve() {
  const asked: string[] = [];
  const run = campaignRun();
  const runs = [campaignRun({ id: 70, counters: { resisted: 3 } }), run];
  server.use(
    http.get("/api/runs/77/", () => HttpResponse.json(run)),
    http.get("/api/runs/77/stats/", () => HttpResponse.json(STATS)),
    http.get("/api/runs/77/attempts/", () =>
      HttpResponse.json({ count: ATTEMPTS.length, next: null, previous: null, results: ATTEMPTS }),
    ),
    http.get("/api/runs/77/events/", () => HttpResponse.json({ results: [], next_after: 0 })),
    http.get("/api/projects/5/runs/", () =>
      HttpResponse.json({ count: runs.length, next: null, previous: null, results: runs }),
    ),
    http.get("/api/runs/77/security-compare/", ({ request }) => {
      asked.push(new URL(request.url).search);
      return HttpResponse.json(comparison());
    }),
  );
  return { asked };
}

describe("campaign run comparison", () => {
  it("is reached from the run page, compares with the run picked, and shows the evidence as text", async () => {
    const { asked } = serve();
    const { user } = renderApp("/security/runs/77", { loggedIn: true });

    await user.click(await screen.findByRole("link", { name: "Compare with another run" }));
    expect(await screen.findByRole("heading", { name: "Campaign run #77 compared" })).toBeInTheDocument();
    expect(screen.getByText("Choose the run to compare with")).toBeInTheDocument();
    expect(asked).toEqual([]); // nothing is compared before a run is chosen

    await user.click(screen.getByRole("combobox", { name: "Compare with" }));
    const other = await screen.findByRole("option", { name: /^#70 · .* · 0 breached$/, hidden: true });
    // The run itself is not offered.
    expect(screen.queryByRole("option", { name: /^#77 /, hidden: true })).not.toBeInTheDocument();
    await user.click(other);

    expect(await screen.findByTestId("verdict")).toHaveTextContent("regressed");
    expect(asked).toEqual(["?baseline=70"]);
    const attacks = screen.getByRole("table", { name: "Breach rate per attack" });
    const row = within(attacks).getByRole("rowheader", { name: "system_prompt_stealer" }).closest("tr");
    expect(row).toHaveTextContent("0 % (0/3)");
    expect(row).toHaveTextContent("100 % (3/3)44–100 % + 1 error");
    expect(row).toHaveTextContent("+100 points");
    const states = screen.getByRole("table", { name: "Breach rate per state of TRACER's graph" });
    const state = within(states).getByRole("rowheader", { name: "prompt_for_size" }).closest("tr");
    expect(state).toHaveTextContent("100 % (3/3)");

    const breached = screen.getByRole("region", { name: "Newly breached" });
    expect(within(breached).getByRole("heading")).toHaveTextContent("Newly breached (3)");
    expect(within(breached).getAllByText(HOSTILE)).toHaveLength(3);
    expect(breached.querySelector("img")).toBeNull(); // the chatbot's markup stays text
    const errors = screen.getByRole("region", { name: "Errors" });
    expect(errors).toHaveTextContent("system_prompt_stealer #4 (direct): the chatbot answered HTTP 502");
    expect(errors).toHaveTextContent("never counted as resisted");
    expect(screen.getByRole("link", { name: "run #70" })).toHaveAttribute("href", "/security/runs/70");
  });

  it("serves visitors of a public project the same comparison, linking to public pages", async () => {
    serve();
    renderApp("/public/security/runs/77/compare?baseline=70");

    expect(await screen.findByTestId("verdict")).toHaveTextContent("regressed");
    expect(screen.getByRole("link", { name: "run #70" })).toHaveAttribute("href", "/public/security/runs/70");
    expect(screen.getByRole("link", { name: "Back to the run" })).toHaveAttribute("href", "/public/security/runs/77");
  });
});
