/**
 * URLs of the dashboards. The same screens serve signed-in users (`owner` mode: their runs, with actions) and
 * anonymous visitors of public projects (`public` mode: read-only, under `/public`).
 */
import type { DashboardKind } from "../../api/runs/runs-dashboard";

export type DashboardMode = "owner" | "public";

const id = (value: number) => String(value);

/** The path segment of each kind's run pages (`/tracer/7`, `/public/checks/7`). */
const RUN_SEGMENT: Record<DashboardKind, string> = {
  tracer: "tracer",
  sensei: "sensei",
  check: "checks",
  bench: "bench",
};

function runPath(kind: DashboardKind, runId: number, mode: DashboardMode = "owner"): string {
  return `${mode === "public" ? "/public" : ""}/${RUN_SEGMENT[kind]}/${id(runId)}`;
}

export const dashboardPaths = {
  tracer: "/tracer",
  sensei: "/sensei",
  bench: "/bench",
  rules: (projectId?: number | null) => (projectId ? `/rules?project=${id(projectId)}` : "/rules"),
  publicProjects: "/public",
  publicProject: (projectId: number) => `/public/projects/${id(projectId)}`,
  /** A run's page, by its kind. */
  run: runPath,
  tracerRun: (runId: number, mode: DashboardMode = "owner") => runPath("tracer", runId, mode),
  senseiRun: (runId: number, mode: DashboardMode = "owner") => runPath("sensei", runId, mode),
  checkRun: (runId: number, mode: DashboardMode = "owner") => runPath("check", runId, mode),
  benchRun: (runId: number, mode: DashboardMode = "owner") => runPath("bench", runId, mode),
  /** The signed-in list a run page goes back to (a check run has no list of its own: SENSEI's). */
  runs: (kind: DashboardKind) => (kind === "tracer" ? "/tracer" : kind === "bench" ? "/bench" : "/sensei"),
  testCenter: (projectId: number) => `/projects/${id(projectId)}`,
  profile: (projectId: number, profileId: number) => `/projects/${id(projectId)}/profiles/${id(profileId)}`,
} as const;
