/**
 * Runs: the single record of every background job. No screen uses these yet; they set the pattern
 * for run screens — a run is polled only while it can still change.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { ResponseJson } from "./types";

export type Run = ResponseJson<"/api/runs/{id}/", "get", 200>;
export type RunStatus = Run["status"];

/** How often an unfinished run is re-read. */
export const RUN_POLL_MS = 2_000;

export function isRunActive(status: RunStatus | undefined): boolean {
  return status === "queued" || status === "running";
}

export const runKeys = {
  all: ["runs"] as const,
  lists: ["runs", "list"] as const,
  list: (page: number) => ["runs", "list", page] as const,
  detail: (id: number) => ["runs", "detail", id] as const,
};

export function getRuns(page = 1, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/", { params: { query: { page } }, signal }));
}

export function getRun(id: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/{id}/", { params: { path: { id } }, signal }));
}

export function startPing() {
  return unwrap(api.POST("/api/runs/ping/"));
}

export function runsQueryOptions(page = 1) {
  return queryOptions({ queryKey: runKeys.list(page), queryFn: ({ signal }) => getRuns(page, signal) });
}

export function runQueryOptions(id: number) {
  return queryOptions({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) => getRun(id, signal),
    refetchInterval: (query) => (isRunActive(query.state.data?.status) ? RUN_POLL_MS : false),
  });
}

export function useRuns(page = 1) {
  return useQuery(runsQueryOptions(page));
}

export function useRun(id: number) {
  return useQuery(runQueryOptions(id));
}

export function useStartPing() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startPing,
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
      return queryClient.invalidateQueries({ queryKey: runKeys.lists });
    },
  });
}
