/** A run page: reads `:runId`, follows the run while it is active, and shows the view for its kind. */
import { useDocumentTitle } from "@mantine/hooks";
import { useParams } from "react-router";
import { useRun } from "../../api/runs/runs";
import type { DashboardKind } from "../../api/runs/runs-dashboard";
import { ErrorState, LoadingState, NotFoundState } from "../../components/StateViews";
import { BenchRunView } from "../bench/BenchRunView";
import { CheckRunView } from "./CheckRunView";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { SenseiRunView } from "./SenseiRunView";
import { TracerRunView } from "./TracerRunView";

const TITLES: Record<DashboardKind, string> = {
  tracer: "TRACER run",
  sensei: "SENSEI run",
  check: "Check run",
  bench: "Bench run",
};

export function RunRoute({ kind, mode }: { kind: DashboardKind; mode: DashboardMode }) {
  const runId = Number(useParams().runId);
  const valid = Number.isInteger(runId) && runId > 0;
  const run = useRun(valid ? runId : 0);
  useDocumentTitle(`${TITLES[kind]} #${String(runId)} · Parley`);
  const back = mode === "public" ? dashboardPaths.publicProjects : dashboardPaths.runs(kind);

  const notFound = {
    what: "run",
    backTo: back,
    backLabel: mode === "public" ? "Back to the public projects" : "Back to the dashboard",
  };
  // A run of another kind at this address (`/tracer/<a SENSEI run>`) is not a TRACER run either.
  if (!valid || (run.data && run.data.kind !== kind)) return <NotFoundState {...notFound} />;
  if (run.isPending) return <LoadingState label="Loading the run" />;
  if (run.isError) {
    return (
      <ErrorState
        error={run.error}
        title="Could not load the run"
        onRetry={() => void run.refetch()}
        notFound={notFound}
      />
    );
  }
  if (kind === "tracer") return <TracerRunView run={run.data} mode={mode} />;
  if (kind === "sensei") return <SenseiRunView run={run.data} mode={mode} />;
  if (kind === "bench") return <BenchRunView run={run.data} mode={mode} />;
  return <CheckRunView run={run.data} mode={mode} />;
}
