import { createBrowserRouter, type RouteObject } from "react-router";
import { AppLayout } from "../components/AppLayout";
import { RouteErrorPage } from "../components/RouteErrorPage";
import { AccountPage } from "../pages/account/AccountPage";
import { LoginPage } from "../pages/auth/LoginPage";
import { SignupPage } from "../pages/auth/SignupPage";
import { ConnectorsPage } from "../pages/connectors/ConnectorsPage";
import { dashboardRoutes, publicRoutes } from "../pages/dashboards/routes";
import { HomePage } from "../pages/home/HomePage";
import { KeysPage } from "../pages/keys/KeysPage";
import { NotFoundPage } from "../pages/not-found/NotFoundPage";
import { ProjectFormPage } from "../pages/projects/ProjectFormPage";
import { ProjectsPage } from "../pages/projects/ProjectsPage";
import { SetupPage } from "../pages/setup/SetupPage";
import { TestCenterPage } from "../pages/test-center/TestCenterPage";
import { RequireAnonymous, RequireAuth } from "./guards";
import { NAV_ITEMS } from "./navigation";

/** The screens with the YAML editor load CodeMirror; they come in their own chunk, on first visit. */
const connectorEditor = () =>
  import("../pages/connectors/ConnectorEditPage").then((module) => ({ Component: module.ConnectorEditPage }));
const transcriptsPage = () =>
  import("../pages/transcripts/TranscriptsPage").then((module) => ({ Component: module.TranscriptsPage }));
const securityPage = () =>
  import("../pages/security/SecurityPage").then((module) => ({ Component: module.SecurityPage }));
const securityRun = () =>
  import("../pages/security/SecurityRunPage").then((module) => ({ Component: module.SecurityRunPage }));
const securityCompare = () =>
  import("../pages/security/SecurityComparePage").then((module) => ({ Component: module.SecurityComparePage }));
const profileEditor = () =>
  import("../pages/test-center/ProfileEditorPage").then((module) => ({ Component: module.ProfileEditorPage }));

/** The route table; tests mount the same table in a memory router. */
export const routes: RouteObject[] = [
  {
    errorElement: <RouteErrorPage />,
    children: [
      {
        element: <RequireAnonymous />,
        children: [
          { path: "/login", element: <LoginPage /> },
          { path: "/signup", element: <SignupPage /> },
        ],
      },
      // Public dashboards: readable without an account.
      ...publicRoutes,
      {
        path: "/",
        element: <RequireAuth />,
        children: [
          {
            element: <AppLayout navItems={NAV_ITEMS} />,
            children: [
              { index: true, element: <HomePage /> },
              { path: "account", element: <AccountPage /> },
              { path: "setup", element: <SetupPage /> },
              { path: "keys", element: <KeysPage /> },
              { path: "connectors", element: <ConnectorsPage /> },
              { path: "connectors/new", lazy: connectorEditor },
              { path: "connectors/:connectorId", lazy: connectorEditor },
              { path: "projects", element: <ProjectsPage /> },
              { path: "projects/new", element: <ProjectFormPage /> },
              { path: "projects/:projectId/edit", element: <ProjectFormPage /> },
              { path: "projects/:projectId", element: <TestCenterPage /> },
              { path: "projects/:projectId/profiles/new", lazy: profileEditor },
              { path: "projects/:projectId/transcripts", lazy: transcriptsPage },
              { path: "projects/:projectId/profiles/:profileId", lazy: profileEditor },
              ...dashboardRoutes,
              { path: "security", lazy: securityPage },
              { path: "security/runs/:runId", lazy: securityRun },
              { path: "security/runs/:runId/compare", lazy: securityCompare },
            ],
          },
        ],
      },
      { path: "*", element: <NotFoundPage /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
