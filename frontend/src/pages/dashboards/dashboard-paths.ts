/**
 * URLs of the dashboards. The same screens serve signed-in users (`owner` mode: their runs, with actions) and
 * anonymous visitors of public projects (`public` mode: read-only, under `/public`).
 */

export type DashboardMode = "owner" | "public";

const id = (value: number) => String(value);

export const dashboardPaths = {
  tracer: "/tracer",
  sensei: "/sensei",
  rules: (projectId?: number | null) => (projectId ? `/rules?project=${id(projectId)}` : "/rules"),
  publicProjects: "/public",
  publicProject: (projectId: number) => `/public/projects/${id(projectId)}`,
  tracerRun: (runId: number, mode: DashboardMode = "owner") =>
    mode === "public" ? `/public/tracer/${id(runId)}` : `/tracer/${id(runId)}`,
  senseiRun: (runId: number, mode: DashboardMode = "owner") =>
    mode === "public" ? `/public/sensei/${id(runId)}` : `/sensei/${id(runId)}`,
  checkRun: (runId: number, mode: DashboardMode = "owner") =>
    mode === "public" ? `/public/checks/${id(runId)}` : `/checks/${id(runId)}`,
  testCenter: (projectId: number) => `/projects/${id(projectId)}`,
  profile: (projectId: number, profileId: number) => `/projects/${id(projectId)}/profiles/${id(profileId)}`,
} as const;
