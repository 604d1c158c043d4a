/** URLs of the security screens: the campaigns of a project and a campaign run's page (owner or public). */
import type { DashboardMode } from "../dashboards/dashboard-paths";

export const securityPaths = {
  home: "/security",
  project: (projectId: number) => `/security?project=${String(projectId)}`,
  run: (runId: number, mode: DashboardMode = "owner") =>
    `${mode === "public" ? "/public" : ""}/security/runs/${String(runId)}`,
} as const;
