/** URLs of the security screens: the campaigns of a project, a campaign run's page and its comparison with another
 * run (owner or public). */
import type { DashboardMode } from "../dashboards/dashboard-paths";

export const securityPaths = {
  home: "/security",
  project: (projectId: number) => `/security?project=${String(projectId)}`,
  run: (runId: number, mode: DashboardMode = "owner") =>
    `${mode === "public" ? "/public" : ""}/security/runs/${String(runId)}`,
  compare: (runId: number, mode: DashboardMode = "owner", baseline: number | null = null) =>
    `${mode === "public" ? "/public" : ""}/security/runs/${String(runId)}/compare${
      baseline ? `?baseline=${String(baseline)}` : ""
    }`,
} as const;
