import type { NavItem } from "../components/AppLayout";
import { paths } from "../lib/paths";
import { dashboardNav } from "../pages/dashboards/routes";
import { securityPaths } from "../pages/security/security-paths";

/** The main navigation, in the order of the work: set up, connect, organise, test, then look at results. */
export const NAV_ITEMS: readonly NavItem[] = [
  { label: "Home", to: paths.home, end: true },
  { label: "Setup guide", to: paths.setup },
  { label: "LLM keys", to: paths.keys },
  { label: "Connectors", to: paths.connectors },
  { label: "Projects", to: paths.projects },
  ...dashboardNav,
  { label: "Security", to: securityPaths.home },
  { label: "Account", to: paths.account },
];
