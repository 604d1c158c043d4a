/** The TRACER/SENSEI dashboards, rules and public views (issue 12) plug into the app through these lists. */
import type { RouteObject } from "react-router";
import { SenseiDashboardPage } from "../sensei/SenseiDashboardPage";
import { TracerDashboardPage } from "../tracer/TracerDashboardPage";
import { dashboardPaths } from "./dashboard-paths";

// Run pages bring React Flow, the charts and the Markdown renderer; the rules page brings CodeMirror. Each
// comes in its own chunk, on first visit.
const tracerRun = () => import("../tracer/TracerRunPage").then((m) => ({ Component: m.TracerRunPage }));
const senseiRun = () => import("../sensei/SenseiRunPage").then((m) => ({ Component: m.SenseiRunPage }));
const checkRun = () => import("../rules/CheckRunPage").then((m) => ({ Component: m.CheckRunPage }));
const rules = () => import("../rules/RulesPage").then((m) => ({ Component: m.RulesPage }));
const publicPages = () => import("../public/PublicRunPage");

/** Routes under the signed-in layout (paths relative to `/`). */
export const dashboardRoutes: RouteObject[] = [
  { path: "tracer", element: <TracerDashboardPage /> },
  { path: "tracer/:runId", lazy: tracerRun },
  { path: "sensei", element: <SenseiDashboardPage /> },
  { path: "sensei/:runId", lazy: senseiRun },
  { path: "rules", lazy: rules },
  { path: "checks/:runId", lazy: checkRun },
];

/** Navigation entries, shown after the workspace screens. */
export const dashboardNav: { label: string; to: string }[] = [
  { label: "TRACER", to: dashboardPaths.tracer },
  { label: "SENSEI", to: dashboardPaths.sensei },
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
      { path: "checks/:runId", lazy: () => publicPages().then((m) => ({ Component: m.PublicCheckRunPage })) },
    ],
  },
];
