/**
 * Runs: the single record of every background job. A run that can still change is followed live (live.ts): the
 * server pushes each change into the cache, so nothing here polls.
 */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { useLiveRun } from "./live";
import { runKeys } from "../query-keys";
import type { components } from "../schema";
import type { ResponseJson } from "../types";

export type Run = ResponseJson<"/api/runs/{id}/", "get", 200>;
export type RunStatus = Run["status"];

/** A run's result, one model per kind (`backend/runs/result_schema.py`); discriminated on `kind`. */
export type RunResult = components["schemas"]["RunResult"];
export type ResultOf<K extends RunResult["kind"]> = Extract<RunResult, { kind: K }>;

/**
 * The run's result when it is one of kind `kind`, else null (no result yet, or another kind's). The server
 * serves a typed kind's result through its model, so its `kind` says which shape it has.
 */
export function resultOf<K extends RunResult["kind"]>(run: Pick<Run, "result">, kind: K): ResultOf<K> | null {
  const result = run.result;
  return result !== null && result.kind === kind ? (result as ResultOf<K>) : null;
}

export function isRunActive(status: RunStatus | undefined): boolean {
  return status === "queued" || status === "running";
}

export function getRuns(page = 1, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/", { params: { query: { page } }, signal }));
}

export function getRun(id: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/{id}/", { params: { path: { id } }, signal }));
}

export function runsQueryOptions(page = 1) {
  return queryOptions({ queryKey: runKeys.list(page), queryFn: ({ signal }) => getRuns(page, signal) });
}

export function runQueryOptions(id: number) {
  return queryOptions({ queryKey: runKeys.detail(id), queryFn: ({ signal }) => getRun(id, signal) });
}

/** A run, followed live while it is queued or running (and while its first read is on its way). */
export function useRun(id: number) {
  const query = useQuery(runQueryOptions(id));
  const status = query.data?.status;
  useLiveRun(id > 0 && (status === undefined ? !query.isError : isRunActive(status)) ? id : null);
  return query;
}
