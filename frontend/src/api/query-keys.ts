/**
 * Every key of the TanStack Query cache, in one tree. A key's first parts say which branch it hangs from, so
 * invalidating a prefix reaches everything below it:
 *
 *     auth · health · providers · schemas
 *     connectors …            keys …            public …
 *     projects … ─ projects/<id>/<document kind>/… (profiles, rules, campaigns, personalities)
 *              ─ projects/baseline/<id>
 *     runs ─ runs/list/… (every list of runs: refetched when a run starts, ends or goes)
 *          ─ runs/detail|events|conversations|stats/<run id> · runs/<result view>/<run id>/…
 *
 * Hooks build their keys here and nowhere else; a filter object in a key is compared by value.
 */

export const authKeys = {
  me: ["auth", "me"] as const,
};

/** Facts about the server and its configuration, read once per session or so. */
export const serverKeys = {
  health: ["health"] as const,
  providers: ["providers"] as const,
  schema: (kind: string) => ["schemas", kind] as const,
};

export const connectorKeys = {
  all: ["connectors"] as const,
  page: (page: number) => ["connectors", "page", page] as const,
  everything: ["connectors", "everything"] as const,
  detail: (id: number) => ["connectors", "detail", id] as const,
  technologies: ["connector-technologies"] as const,
  validation: (yaml: string) => ["connector-validation", yaml] as const,
};

export const keyKeys = {
  all: ["keys"] as const,
  page: (page: number) => ["keys", "page", page] as const,
  everything: ["keys", "everything"] as const,
};

export const publicKeys = {
  projects: (page: number) => ["public", "projects", page] as const,
};

export const projectKeys = {
  all: ["projects"] as const,
  page: (page: number) => ["projects", "page", page] as const,
  everything: ["projects", "everything"] as const,
  detail: (id: number) => ["projects", "detail", id] as const,
  /** Everything that hangs from one project (its documents). */
  one: (projectId: number) => ["projects", projectId] as const,
  baseline: (projectId: number) => ["projects", "baseline", projectId] as const,
};

/** The YAML documents a project keeps, one branch per kind (the server's one document view serves them all). */
export type DocumentKind = "profiles" | "rules" | "campaigns" | "personalities";

export function documentKeys(kind: DocumentKind) {
  return {
    all: (projectId: number) => ["projects", projectId, kind] as const,
    list: (projectId: number) => ["projects", projectId, kind, "list"] as const,
    firstPage: (projectId: number) => ["projects", projectId, kind, "first-page"] as const,
    detail: (projectId: number, id: number) => ["projects", projectId, kind, "detail", id] as const,
    template: (projectId: number) => ["projects", projectId, kind, "template"] as const,
    validation: (projectId: number, text: string) => ["projects", projectId, kind, "validate", text] as const,
  };
}

export const runKeys = {
  all: ["runs"] as const,
  /** Every list of runs (dashboards, pickers, the setup guide's connection tests): refetched when runs change. */
  lists: ["runs", "list"] as const,
  list: (page: number) => ["runs", "list", page] as const,
  dashboard: (filters: object) => ["runs", "list", "dashboard", filters] as const,
  ofProject: (projectId: number, kind: string) => ["runs", "list", "project", projectId, kind] as const,
  connectorTests: ["runs", "list", "connector-tests"] as const,
  detail: (id: number) => ["runs", "detail", id] as const,
  events: (runId: number) => ["runs", "events", runId] as const,
  /** Prefix of every conversation list of a run. */
  conversations: (runId: number) => ["runs", "conversations", runId] as const,
  conversationList: (runId: number, filters: object) => ["runs", "conversations", runId, filters] as const,
  conversation: (runId: number, id: number) => ["runs", "conversation", runId, id] as const,
  findConversation: (senseiRuns: readonly number[], recordId: string | null) =>
    ["runs", "find-conversation", senseiRuns, recordId] as const,
  stats: (runId: number) => ["runs", "stats", runId] as const,
  artefact: (runId: number, name: string) => ["runs", "artefacts", runId, name] as const,
  ruleResults: (runId: number) => ["runs", "results", runId] as const,
  attempts: (runId: number, filters: object, done: number) => ["runs", "attempts", runId, filters, done] as const,
  securityStats: (runId: number, done: number) => ["runs", "security-stats", runId, done] as const,
  diff: (projectId: number, from: number, to: number) => ["runs", "diff", projectId, from, to] as const,
  coverage: (runId: number, tracer: number | null) => ["runs", "coverage", runId, tracer] as const,
  /** Prefix of every SENSEI comparison (a new baseline changes them all). */
  comparisons: ["runs", "compare"] as const,
  comparison: (runId: number, baseline: number | null, threshold: number) =>
    ["runs", "compare", runId, baseline, threshold] as const,
  securityComparison: (runId: number, baseline: number, threshold: number) =>
    ["runs", "security-compare", runId, baseline, threshold] as const,
};

export const profileKeys = documentKeys("profiles");
export const ruleKeys = documentKeys("rules");
export const campaignKeys = documentKeys("campaigns");
