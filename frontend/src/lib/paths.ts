/** Every in-app URL is built here, so a renamed route is a one-line change. */

export const paths = {
  home: "/",
  account: "/account",
  signup: (next?: string | null) => withNext("/signup", next),
  login: (next?: string | null) => withNext("/login", next),
  setup: "/setup",
  keys: "/keys",
  connectors: "/connectors",
  newConnector: "/connectors/new",
  connector: (id: number) => `/connectors/${String(id)}`,
  projects: "/projects",
  newProject: "/projects/new",
  editProject: (id: number) => `/projects/${String(id)}/edit`,
  testCenter: (projectId: number, runId?: number) =>
    `/projects/${String(projectId)}` + (runId === undefined ? "" : `?run=${String(runId)}`),
  transcripts: (projectId: number) => `/projects/${String(projectId)}/transcripts`,
  newProfile: (projectId: number) => `/projects/${String(projectId)}/profiles/new`,
  profile: (projectId: number, profileId: number) => `/projects/${String(projectId)}/profiles/${String(profileId)}`,
  /** The public dashboards: anyone can read public projects' runs without an account. */
  publicProjects: "/public",
  publicProject: (projectId: number) => `/public/projects/${String(projectId)}`,
  /** A model qualification (issue 36): its table, chart and recommendation. */
  qualification: (runId: number) => `/qualifications/${String(runId)}`,
  /** A long run's own page (its report and results), or null for the short runs that have none. */
  runPage: (kind: string, runId: number): string | null => {
    const segment = RUN_PAGES[kind];
    return segment === undefined ? null : `/${segment}/${String(runId)}`;
  },
} as const;

const RUN_PAGES: Partial<Record<string, string>> = {
  tracer: "tracer",
  sensei: "sensei",
  check: "checks",
  bench: "bench",
  security: "security/runs",
  qualify: "qualifications",
};

function withNext(path: string, next?: string | null): string {
  const safe = safeNext(next);
  return safe === null || safe === paths.home ? path : `${path}?${new URLSearchParams({ next: safe }).toString()}`;
}

/**
 * Accepts only a same-origin, absolute in-app path for `?next=`.
 * Anything else (`https://evil.example`, `//evil.example`, `/\evil.example`, `javascript:`) becomes null,
 * so the login page cannot be used as an open redirect.
 */
export function safeNext(next: string | null | undefined): string | null {
  if (!next?.startsWith("/")) return null;
  if (next.startsWith("//") || next.startsWith("/\\")) return null;
  if (next.startsWith("/login") || next.startsWith("/signup")) return null;
  return next;
}
