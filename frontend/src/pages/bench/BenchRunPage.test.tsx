import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { BENCH_JSON, BENCH_MD, benchRun } from "../../testing/bench-fixture";

function serveFinishedBench(overrides: Parameters<typeof benchRun>[0] = {}) {
  const run = benchRun(overrides);
  server.use(
    http.get(`/api/runs/${String(run.id)}/`, () => HttpResponse.json(run)),
    http.get(`/api/runs/${String(run.id)}/artefacts/bench/`, () =>
      HttpResponse.json({ name: "bench", content: BENCH_JSON, created_at: run.finished_at }),
    ),
    http.get(`/api/runs/${String(run.id)}/artefacts/report/`, () =>
      HttpResponse.json({ name: "report", content: BENCH_MD, created_at: run.finished_at }),
    ),
  );
  return run;
}

function figure(name: string) {
  return screen.getByRole("group", { name });
}

describe("bench run page", () => {
  it("shows the headline figures of bench.json with the model they were measured with", async () => {
    const run = serveFinishedBench();
    renderApp(`/bench/${String(run.id)}`, { loggedIn: true });

    expect(await screen.findByRole("heading", { level: 1, name: "Bench run #41" })).toBeInTheDocument();
    expect(await screen.findByRole("group", { name: "Mutation score" })).toHaveTextContent("66.7%");
    expect(figure("Mutation score")).toHaveTextContent("with oracles, differential: 2 of 3 killed");
    expect(figure("Mutation score, automatic")).toHaveTextContent("33.3%");
    expect(figure("Mutation score, automatic")).toHaveTextContent("no ground truth, differential: 1 of 3 killed");
    expect(figure("Thesis rule")).toHaveTextContent("100%");
    expect(figure("Thesis rule")).toHaveTextContent("for comparison only");
    expect(figure("Controls killed by noise")).toHaveTextContent("0 of 1");
    expect(figure("Mutants")).toHaveTextContent("2 killed · 1 live");
    expect(figure("Mutants")).toHaveTextContent("1 inconclusive · 1 stillborn");
    expect(figure("TRACER precision")).toHaveTextContent("75%");
    expect(figure("TRACER recall")).toHaveTextContent("83.3%");
    expect(figure("TRACER recall")).toHaveTextContent("modules 3/3 · inputs 2/3");
    expect(figure("False alarms")).toHaveTextContent("12.5%");
    expect(figure("False alarms")).toHaveTextContent("1 of 8 conversations");
    expect(figure("False alarms")).toHaveTextContent("automatic only 0%");
    expect(figure("LLM calls")).toHaveTextContent("212");
    expect(figure("Tokens")).toHaveTextContent("118,400 + 3,210");
    expect(figure("Cost")).toHaveTextContent("$0.0197");
    expect(figure("Wall time")).toHaveTextContent("1 min 3 s");
    const measured = screen.getByLabelText("Measured with");
    expect(measured).toHaveTextContent("openai · model gpt-4o-mini · temperature the provider's default · Parley 0.1.0");
    expect(measured).toHaveTextContent(
      "TRACER 3 sessions × 4 turns; 2 SENSEI runs on the original and on each mutant, same seeds",
    );

    // TRACER against SENSEI, per dimension, with the counts behind each percentage.
    const coverage = screen.getByRole("table", { name: "Coverage of Spoke & Chain Cycles" });
    const tracerRow = within(coverage).getByRole("rowheader", { name: "TRACER" }).closest("tr");
    expect(tracerRow).toHaveTextContent("66.7% (2/3)33.3% (1/3)50% (1/2)25% (1/4)");
    const senseiRow = within(coverage).getByRole("rowheader", { name: "SENSEI, all runs" }).closest("tr");
    expect(senseiRow).toHaveTextContent("100% (3/3)100% (3/3)100% (2/2)75% (3/4)");

    const operators = screen.getByRole("table", { name: "Kills per operator" });
    expect(within(operators).getByRole("row", { name: /delete-fallback/ })).toHaveTextContent("delete-fallback101");
    expect(screen.getByRole("table", { name: "Kills per reason" })).toHaveTextContent("crash1");
    expect(screen.getByRole("table", { name: "False alarms per reason" })).toHaveTextContent("unmet_goal1");
    expect(screen.getByRole("figure", { name: "Kills per operator chart" })).toBeInTheDocument();

    // The live mutant is called out, its description shown as text.
    const live = screen.getByRole("list", { name: "Live mutants" });
    expect(within(live).getByText("delete-fallback-1")).toBeInTheDocument();
    expect(within(live).getByText("top: fallback deleted <b>(the stock fallback is said instead)</b>")).toBeVisible();
    expect(live.querySelector("b")).toBeNull();
    expect(screen.getByRole("table", { name: "LLM usage per phase of Spoke & Chain Cycles" })).toHaveTextContent(
      "SENSEI on the mutants96",
    );
  });

  it("highlights live mutants, filters by status, keeps stillborn ones apart, and lists the oracle rules", async () => {
    const run = serveFinishedBench();
    const { user } = renderApp(`/bench/${String(run.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("tab", { name: "Mutants" }));
    const table = await screen.findByRole("table", { name: "Mutants" });
    const body = () => within(table).getAllByRole("rowgroup")[1] ?? table;
    expect(within(body()).getAllByRole("row")).toHaveLength(4);
    const liveRow = within(table).getByText("delete-fallback-1").closest("tr");
    expect(liveRow).toHaveAttribute("data-status", "live");
    expect(liveRow).toHaveStyle({ background: "var(--mantine-color-red-light)" });
    expect(within(liveRow ?? table).getByText("live")).toBeInTheDocument();
    const killedRow = within(table).getByText("swap-qa-answers-1").closest("tr");
    expect(killedRow).not.toHaveAttribute("data-status", "live");
    expect(killedRow).toHaveTextContent("failed_rule × 3");
    expect(killedRow).toHaveTextContent("faq_answers × 3");
    // Killed with the oracles only, by a signature the original never showed.
    expect(killedRow).toHaveTextContent("not killed");
    expect(killedRow).toHaveTextContent("failed_rule · Curious rider · #0 · faq_answers (2/2, original 0)");
    const crashRow = within(table).getByText("crash-on-value-1").closest("tr");
    expect(crashRow).toHaveTextContent("crash · Booker · #1 (2/2, original 0)");
    // A signature the original showed too is no kill and is not listed as one.
    expect(crashRow).not.toHaveTextContent("missing_output");
    expect(within(table).getByText("wrong-language-1").closest("tr")).toHaveTextContent(
      "The LLM provider refused the request (429).",
    );

    await user.click(screen.getByRole("radio", { name: "Live (1)" }));
    expect(within(body()).getAllByRole("row")).toHaveLength(1);
    expect(body()).toHaveTextContent("delete-fallback-1");
    await user.click(screen.getByRole("radio", { name: "Killed (2)" }));
    expect(within(body()).getAllByRole("row")).toHaveLength(2);
    expect(body()).not.toHaveTextContent("delete-fallback-1");
    await user.click(screen.getByRole("radio", { name: "All (4)" }));
    expect(within(body()).getAllByRole("row")).toHaveLength(4);
    expect(table).not.toHaveTextContent("change-optionality-1");

    const stillborn = screen.getByRole("table", { name: "Stillborn mutants" });
    expect(stillborn).toHaveTextContent("change-optionality-1");
    expect(stillborn).toHaveTextContent("the formula needs slot 'service', which is optional");

    await user.click(screen.getByRole("tab", { name: "Rules" }));
    const rules = await screen.findByRole("table", { name: "Rules of Spoke & Chain Cycles" });
    expect(within(rules).getAllByRole("row")).toHaveLength(5);
    expect(within(rules).getByText("model_options_service").closest("tr")).toHaveTextContent("TRACER's model");
    expect(within(rules).getByText("faq_answers").closest("tr")).toHaveTextContent("ground truth");
    expect(
      within(rules).getByText("bike: the options offered for an enum slot are its <i>ground-truth</i> values"),
    ).toBeInTheDocument();

    // bench.md, rendered without its raw HTML.
    await user.click(screen.getByRole("tab", { name: "Report" }));
    const report = await screen.findByRole("tabpanel", { name: "Report" });
    expect(await within(report).findByRole("heading", { name: "Parley bench" })).toBeInTheDocument();
    expect(within(report).getByRole("table")).toHaveTextContent("Mutation score (%)66.67");
    expect(report.querySelector("script")).toBeNull();
    expect(report).not.toHaveTextContent("alert");
  });

  it("follows a running bench: progress, and each mutant's outcome as it is known", async () => {
    const run = benchRun({
      status: "running",
      stage: "mutants (3)",
      progress: { done: 2, total: 3 },
      result: null,
      finished_at: null,
      duration_seconds: null,
    });
    let reads = 0;
    server.use(
      http.get(`/api/runs/${String(run.id)}/`, () => {
        reads += 1;
        return HttpResponse.json(run);
      }),
      http.get(`/api/runs/${String(run.id)}/events/`, () =>
        HttpResponse.json({
          next_after: 3,
          results: [
            { id: 1, type: "stage", created_at: "2026-11-22T09:00:02Z", data: { stage: "bike: tracer" } },
            {
              id: 2,
              type: "progress",
              created_at: "2026-11-22T09:00:30Z",
              data: {
                done: 1,
                total: 3,
                mutant: "crash-on-value-1",
                operator: "crash-on-value",
                status: "killed",
                reasons: ["crash"],
              },
            },
            {
              id: 3,
              type: "progress",
              created_at: "2026-11-22T09:00:40Z",
              data: {
                done: 2,
                total: 3,
                mutant: "delete-fallback-1",
                operator: "delete-fallback",
                status: "live",
                reasons: [],
              },
            },
          ],
        }),
      ),
    );
    renderApp(`/bench/${String(run.id)}`, { loggedIn: true });

    expect(await screen.findByRole("status", { name: "Run progress" })).toHaveTextContent("Stage: Mutants (3)");
    const mutants = await screen.findByRole("table", { name: "Mutants so far" });
    expect(within(mutants).getByText("delete-fallback-1").closest("tr")).toHaveAttribute("data-status", "live");
    expect(within(mutants).getByText("crash-on-value-1").closest("tr")).toHaveTextContent("killed");
    expect(screen.getByText("2 of 3")).toBeInTheDocument();
    expect(screen.getByRole("tab", { name: "Figures" })).toBeDisabled();
    expect(reads).toBeGreaterThan(0);
  });
});
