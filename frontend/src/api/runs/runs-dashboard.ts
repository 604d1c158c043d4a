/**
 * The TRACER, SENSEI, check and bench dashboards: run lists with the server's filters, sorting and pagination,
 * deleting a run, its aggregates (`stats/`), exports, and the model diff between two TRACER runs.
 *
 * `result`, `params` and `stats/` are free-form JSON in the schema (each run kind fills them differently), so every
 * shape is read with a runtime check: a field that does not look right is shown as missing rather than trusted.
 */
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { isBlob, saveBlob } from "../../lib/save-blob";
import { api, settle, unwrap, unwrapEmpty } from "../client";
import { toApiError } from "../errors";
import { collectPages } from "../pagination";
import { useLiveRun, useLiveRunLists } from "./live";
import { runKeys } from "../query-keys";
import { type ResultOf, type RunStatus } from "./runs";
import type { components, paths } from "../schema";
import { isRecord, str } from "../../lib/json";

type RunListQuery = NonNullable<paths["/api/runs/"]["get"]["parameters"]["query"]>;
export type RunOrdering = NonNullable<RunListQuery["ordering"]>;
/** The run kinds with a dashboard (a runs list and a run page). */
export type DashboardKind = "tracer" | "sensei" | "check" | "bench";

export interface RunFilters {
  kind: DashboardKind;
  page: number;
  project?: number | null;
  status?: RunStatus | null;
  search?: string;
  ordering?: RunOrdering;
  createdAfter?: string | null;
  createdBefore?: string | null;
  /** `public`: every public project's runs (what anonymous visitors always get). */
  scope?: "mine" | "public";
}

function listQuery(filters: RunFilters): RunListQuery {
  const query: RunListQuery = { kind: filters.kind, page: filters.page };
  if (filters.project) query.project = filters.project;
  if (filters.status) query.status = filters.status;
  if (filters.search?.trim()) query.search = filters.search.trim();
  if (filters.ordering) query.ordering = filters.ordering;
  if (filters.createdAfter) query.created_after = filters.createdAfter;
  if (filters.createdBefore) query.created_before = filters.createdBefore;
  if (filters.scope) query.scope = filters.scope;
  return query;
}

export function getRunsPage(filters: RunFilters, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/", { params: { query: listQuery(filters) }, signal }));
}

/** A page of runs (`useRunsPage` re-reads it when the server says one of the visitor's runs changed). */
export function runsPageQueryOptions(filters: RunFilters) {
  return queryOptions({
    queryKey: runKeys.dashboard(filters),
    queryFn: ({ signal }) => getRunsPage(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useRunsPage(filters: RunFilters) {
  useLiveRunLists();
  return useQuery(runsPageQueryOptions(filters));
}

/** Every run of one kind in a project, newest first (pickers: diff target, SENSEI runs to check). */
export function getProjectRuns(projectId: number, kind: DashboardKind, signal?: AbortSignal) {
  return collectPages((page) =>
    unwrap(
      api.GET("/api/projects/{project_id}/runs/", {
        params: { path: { project_id: projectId }, query: { kind, page, ordering: "-created_at" } },
        signal,
      }),
    ),
  );
}

export function useProjectRuns(projectId: number | null, kind: DashboardKind) {
  useLiveRunLists(projectId !== null);
  return useQuery({
    queryKey: runKeys.ofProject(projectId ?? 0, kind),
    queryFn: ({ signal }) => getProjectRuns(projectId ?? 0, kind, signal),
    enabled: projectId !== null,
  });
}

export function deleteRun(runId: number) {
  return unwrapEmpty(api.DELETE("/api/runs/{id}/", { params: { path: { id: runId } } }));
}

export function useDeleteRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteRun,
    onSuccess: (_data, runId) => {
      queryClient.removeQueries({ queryKey: runKeys.detail(runId) });
      return queryClient.invalidateQueries({ queryKey: runKeys.lists });
    },
  });
}

// -- what a run was asked and what it found --------------------------------------------------------------------

/** The names of the documents a run was given (`params.profiles`, `params.rules`: free-form in the schema). */
export function documentNames(value: unknown): string[] {
  return Array.isArray(value) ? value.filter(isRecord).map((p) => str(p.name)) : [];
}

/**
 * Share of a SENSEI run's conclusive conversations that passed (0…1), inconclusive ones left out; for runs before
 * verdicts, the share without errors. Null before any finished.
 */
export function senseiPassRate(result: ResultOf<"sensei"> | null): number | null {
  if (result === null) return null;
  const { passed, failed, conversations, with_errors: withErrors } = result;
  if (passed !== null && failed !== null) return passed + failed > 0 ? passed / (passed + failed) : null;
  return conversations > 0 ? (conversations - withErrors) / conversations : null;
}

/** Share of a check run's rules that passed among those that decided something (0…1). */
export function checkPassRate(result: ResultOf<"check"> | null): number | null {
  const decided = result ? result.passed + result.failed + result.error : 0;
  return result && decided > 0 ? result.passed / decided : null;
}

// -- stats/ ----------------------------------------------------------------------------------------------------

/** A run's aggregates (`stats/`): SENSEI verdicts, errors, profiles and response times; check rules; breach rates. */
export type RunStatistics = components["schemas"]["RunStatistics"];

/** Aggregates of a run; while `live`, re-read when the server says a conversation was stored. */
export function useRunStats(runId: number, live: boolean, enabled = true) {
  useLiveRun(live && enabled ? runId : null);
  return useQuery({
    queryKey: runKeys.stats(runId),
    queryFn: ({ signal }) => unwrap(api.GET("/api/runs/{id}/stats/", { params: { path: { id: runId } }, signal })),
    enabled,
  });
}

// -- exports ---------------------------------------------------------------------------------------------------

export type ExportFormat = "json" | "csv" | "junit";

const EXTENSIONS: Record<ExportFormat, string> = { json: "json", csv: "csv", junit: "xml" };

/** Downloads an export through the authenticated client (a plain link would not carry the token). */
export async function downloadExport(runId: number, format: ExportFormat): Promise<void> {
  const { data, error, response } = await settle(
    api.GET("/api/runs/{id}/export/{fmt}/", { params: { path: { id: runId, fmt: format } }, parseAs: "blob" }),
  );
  if (!response.ok || !isBlob(data)) throw toApiError(response, error);
  saveBlob(data, `parley-run-${String(runId)}.${EXTENSIONS[format]}`);
}

export function useDownloadExport() {
  return useMutation({
    mutationFn: ({ runId, format }: { runId: number; format: ExportFormat }) => downloadExport(runId, format),
  });
}

// -- model diff ------------------------------------------------------------------------------------------------

/** Functionalities added, removed and changed between two TRACER runs of a project. */
export function useModelDiff(projectId: number, from: number, to: number | null) {
  return useQuery({
    queryKey: runKeys.diff(projectId, from, to ?? 0),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{project_id}/diff/", {
          params: { path: { project_id: projectId }, query: { from, to: to ?? 0 } },
          signal,
        }),
      ),
    enabled: to !== null,
    staleTime: Infinity,
  });
}
