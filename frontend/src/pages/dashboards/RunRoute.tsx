/** A run page: reads `:runId`, follows the run while it is active, and shows the view for its kind. */
import { Button, Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link, useParams } from "react-router";
import { useRun } from "../../api/runs";
import type { DashboardKind } from "../../api/runs-dashboard";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
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

  if (!valid || (run.data && run.data.kind !== kind)) {
    return (
      <EmptyState
        title="No such run"
        action={
          <Button component={Link} to={back} variant="light">
            Back to the dashboard
          </Button>
        }
      />
    );
  }
  if (run.isPending) return <LoadingState label="Loading the run" />;
  if (run.isError) {
    return (
      <Stack>
        <ErrorState error={run.error} title="Could not load the run" onRetry={() => void run.refetch()} />
      </Stack>
    );
  }
  if (kind === "tracer") return <TracerRunView run={run.data} mode={mode} />;
  if (kind === "sensei") return <SenseiRunView run={run.data} mode={mode} />;
  if (kind === "bench") return <BenchRunView run={run.data} mode={mode} />;
  return <CheckRunView run={run.data} mode={mode} />;
}
