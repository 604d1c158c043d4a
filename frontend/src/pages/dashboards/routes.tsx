/** The TRACER/SENSEI/bench dashboards, rules and public views plug into the app through these lists. */
import type { RouteObject } from "react-router";
import { dashboardPaths } from "./dashboard-paths";

// Dashboards and run pages bring React Flow, the charts and the Markdown renderer; the rules page brings
// CodeMirror. Each comes in its own chunk, on first visit, so the first screen loads none of them.
const tracerDashboard = () =>
  import("../tracer/TracerDashboardPage").then((m) => ({ Component: m.TracerDashboardPage }));
const senseiDashboard = () =>
  import("../sensei/SenseiDashboardPage").then((m) => ({ Component: m.SenseiDashboardPage }));
const benchDashboard = () => import("../bench/BenchDashboardPage").then((m) => ({ Component: m.BenchDashboardPage }));
const tracerRun = () => import("../tracer/TracerRunPage").then((m) => ({ Component: m.TracerRunPage }));
const senseiRun = () => import("../sensei/SenseiRunPage").then((m) => ({ Component: m.SenseiRunPage }));
const benchRun = () => import("../bench/BenchRunPage").then((m) => ({ Component: m.BenchRunPage }));
const checkRun = () => import("../rules/CheckRunPage").then((m) => ({ Component: m.CheckRunPage }));
const qualification = () => import("../qualify/QualificationPage").then((m) => ({ Component: m.QualificationPage }));
const rules = () => import("../rules/RulesPage").then((m) => ({ Component: m.RulesPage }));
const publicPages = () => import("../public/PublicRunPage");
const comparePage = () => import("../compare/ComparePage");
const coveragePage = () => import("../compare/CoveragePage");

/** Routes under the signed-in layout (paths relative to `/`). */
export const dashboardRoutes: RouteObject[] = [
  { path: "tracer", lazy: tracerDashboard },
  { path: "tracer/:runId", lazy: tracerRun },
  { path: "sensei", lazy: senseiDashboard },
  { path: "sensei/:runId", lazy: senseiRun },
  { path: "sensei/:runId/compare", lazy: () => comparePage().then((m) => ({ Component: m.ComparePage })) },
  { path: "sensei/:runId/coverage", lazy: () => coveragePage().then((m) => ({ Component: m.CoveragePage })) },
  { path: "bench", lazy: benchDashboard },
  { path: "bench/:runId", lazy: benchRun },
  { path: "rules", lazy: rules },
  { path: "checks/:runId", lazy: checkRun },
  { path: "qualifications/:runId", lazy: qualification },
];

/** Navigation entries, shown after the workspace screens. */
export const dashboardNav: { label: string; to: string }[] = [
  { label: "TRACER", to: dashboardPaths.tracer },
  { label: "SENSEI", to: dashboardPaths.sensei },
  { label: "Bench", to: dashboardPaths.bench },
  { label: "Rules", to: dashboardPaths.rules() },
];

/**
 * Read-only dashboards of public projects, for anyone, signed in or not. They belong outside the sign-in guard
 * (a sibling of the login/sign-up routes in `app/router.tsx`), with their own light layout.
 */
export const publicRoutes: RouteObject[] = [
  {
    path: "/public",
    lazy: () => import("../public/PublicLayout").then((m) => ({ Component: m.PublicLayout })),
    children: [
      {
        index: true,
        lazy: () => import("../public/PublicProjectsPage").then((m) => ({ Component: m.PublicProjectsPage })),
      },
      {
        path: "projects/:projectId",
        lazy: () => import("../public/PublicProjectPage").then((m) => ({ Component: m.PublicProjectPage })),
      },
      { path: "tracer/:runId", lazy: () => publicPages().then((m) => ({ Component: m.PublicTracerRunPage })) },
      { path: "sensei/:runId", lazy: () => publicPages().then((m) => ({ Component: m.PublicSenseiRunPage })) },
      { path: "sensei/:runId/compare", lazy: () => comparePage().then((m) => ({ Component: m.PublicComparePage })) },
      {
        path: "sensei/:runId/coverage",
        lazy: () => coveragePage().then((m) => ({ Component: m.PublicCoveragePage })),
      },
      { path: "checks/:runId", lazy: () => publicPages().then((m) => ({ Component: m.PublicCheckRunPage })) },
      { path: "bench/:runId", lazy: () => publicPages().then((m) => ({ Component: m.PublicBenchRunPage })) },
      {
        path: "security/runs/:runId",
        lazy: () => import("../security/SecurityRunPage").then((m) => ({ Component: m.PublicSecurityRunPage })),
      },
      {
        path: "security/runs/:runId/compare",
        lazy: () => import("../security/SecurityComparePage").then((m) => ({ Component: m.PublicSecurityComparePage })),
      },
    ],
  },
];
