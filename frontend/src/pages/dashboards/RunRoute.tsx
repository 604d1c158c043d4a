/** A run page: reads `:runId`, follows the run while it is active, and shows the view for its kind. */
import { useDocumentTitle } from "@mantine/hooks";
import { useParams } from "react-router";
import type { ReactNode } from "react";
import { type Run, useRun } from "../../api/runs/runs";
import type { DashboardKind } from "../../api/runs/runs-dashboard";
import { NotFoundState, type NotFoundTarget, QueryStates } from "../../components/StateViews";
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

/** The run of `:runId` when it is of `kind` (a run of another kind at the address is not one either). */
export function RunOfKind({
  kind,
  title,
  notFound,
  children,
}: {
  kind: Run["kind"];
  /** "TRACER run": the tab reads "TRACER run #12 · Parley". */
  title: string;
  notFound: NotFoundTarget;
  children: (run: Run) => ReactNode;
}) {
  const runId = Number(useParams().runId);
  const valid = Number.isInteger(runId) && runId > 0;
  const run = useRun(valid ? runId : 0);
  useDocumentTitle(`${title} #${String(runId)} · Parley`);
  if (!valid || (run.data && run.data.kind !== kind)) return <NotFoundState {...notFound} />;
  return (
    <QueryStates query={run} what="the run" notFound={notFound}>
      {children}
    </QueryStates>
  );
}

export function RunRoute({ kind, mode }: { kind: DashboardKind; mode: DashboardMode }) {
  const notFound = {
    what: "run",
    backTo: mode === "public" ? dashboardPaths.publicProjects : dashboardPaths.runs(kind),
    backLabel: mode === "public" ? "Back to the public projects" : "Back to the dashboard",
  };
  return (
    <RunOfKind kind={kind} title={TITLES[kind]} notFound={notFound}>
      {(run) => {
        if (kind === "tracer") return <TracerRunView run={run} mode={mode} />;
        if (kind === "sensei") return <SenseiRunView run={run} mode={mode} />;
        if (kind === "bench") return <BenchRunView run={run} mode={mode} />;
        return <CheckRunView run={run} mode={mode} />;
      }}
    </RunOfKind>
  );
}
