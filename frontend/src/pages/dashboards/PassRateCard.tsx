/** Pass rates of the latest finished runs of one kind, oldest first (SENSEI: conversations; check: rules). */
import { checkPassRate, senseiPassRate, useRunsPage } from "../../api/runs/runs-dashboard";
import { resultOf } from "../../api/runs/runs";
import { PassRateChart, type PassRatePoint } from "../../components/charts/RunCharts";
import type { DashboardMode } from "./dashboard-paths";

export function PassRateCard({
  kind,
  mode,
  projectId,
}: {
  kind: "sensei" | "check";
  mode: DashboardMode;
  projectId?: number | null;
}) {
  const runs = useRunsPage({
    kind,
    page: 1,
    status: "succeeded",
    ordering: "-created_at",
    project: projectId ?? null,
    scope: mode === "public" ? "public" : "mine",
  });
  const points: PassRatePoint[] = (runs.data?.results ?? [])
    .map((run) => ({
      run,
      rate: kind === "sensei" ? senseiPassRate(resultOf(run, "sensei")) : checkPassRate(resultOf(run, "check")),
    }))
    .filter((row): row is { run: (typeof row)["run"]; rate: number } => row.rate !== null)
    .reverse()
    .map(({ run, rate }) => ({
      label: `#${String(run.id)} ${new Date(run.created_at).toLocaleDateString(undefined, { month: "short", day: "numeric" })}`,
      rate: Math.round(rate * 1000) / 10,
    }));
  return (
    <PassRateChart
      points={points}
      title={kind === "sensei" ? "Conversations without errors, run by run" : "Rules passed, check by check"}
    />
  );
}
