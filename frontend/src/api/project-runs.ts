/**
 * TRACER, SENSEI and check runs of a project, their live events and cancellation.
 *
 * Run fields with free-form JSON in the schema (progress, counters, usage) are read with `readRunProgress`.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { isRecord } from "./run-results";
import { runKeys } from "./runs";
import type { RequestJson, ResponseJson } from "./types";

export type StartRunInput = RequestJson<"/api/projects/{project_id}/runs/", "post">;
export type RunKind = StartRunInput["kind"];
type RunEventBody = ResponseJson<"/api/runs/{id}/events/", "get", 200>["results"][number];

/** An event with its `data` checked to be an object. */
export interface RunEvent {
  id: number;
  type: RunEventBody["type"];
  created_at: string;
  data: Record<string, unknown>;
}

/** Parallel simulated conversations when the caller does not say (the server's default). */
export const DEFAULT_CONCURRENCY = 4;

export function startProjectRun(projectId: number, body: StartRunInput) {
  return unwrap(api.POST("/api/projects/{project_id}/runs/", { params: { path: { project_id: projectId } }, body }));
}

export function cancelRun(runId: number) {
  return unwrap(api.POST("/api/runs/{id}/cancel/", { params: { path: { id: runId } } }));
}

export async function getRunEvents(runId: number, after: number | null, signal?: AbortSignal) {
  const query = after === null ? {} : { after };
  const page = await unwrap(api.GET("/api/runs/{id}/events/", { params: { path: { id: runId }, query }, signal }));
  return {
    next_after: page.next_after,
    results: page.results.map((event): RunEvent => ({
      id: event.id,
      type: event.type,
      created_at: event.created_at,
      data: isRecord(event.data) ? event.data : {},
    })),
  };
}

export function useStartProjectRun(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: StartRunInput) => startProjectRun(projectId, body),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
      return queryClient.invalidateQueries({ queryKey: runKeys.lists });
    },
  });
}

export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: cancelRun,
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
    },
  });
}

/** How often the log of an unfinished run is read. */
export const EVENTS_POLL_MS = 2_000;
/** Events kept on screen; older ones scroll out (the full log stays on the server). */
export const MAX_EVENTS_KEPT = 2_000;

export const runEventKeys = {
  list: (runId: number) => ["runs", "events", runId] as const,
};

/**
 * The run's events, accumulated: each fetch asks only for what came after the last event held, and appends.
 * Polls while `live`; the caller flips `live` off once the run has finished (after one last read).
 */
export function runEventsQueryOptions(runId: number, live: boolean, read: () => RunEvent[] | undefined) {
  return queryOptions({
    queryKey: runEventKeys.list(runId),
    queryFn: async ({ signal }) => {
      const held = read() ?? [];
      const last = held.at(-1);
      const page = await getRunEvents(runId, last === undefined ? null : last.id, signal);
      const seen = new Set(held.map((event) => event.id));
      const merged = [...held, ...page.results.filter((event) => !seen.has(event.id))];
      return merged.length > MAX_EVENTS_KEPT ? merged.slice(-MAX_EVENTS_KEPT) : merged;
    },
    refetchInterval: live ? EVENTS_POLL_MS : false,
    staleTime: 0,
  });
}

export function useRunEvents(runId: number, live: boolean) {
  const queryClient = useQueryClient();
  return useQuery(
    runEventsQueryOptions(runId, live, () => queryClient.getQueryData<RunEvent[]>(runEventKeys.list(runId))),
  );
}

export interface RunProgress {
  stage: string;
  done: number | null;
  total: number | null;
  counters: [string, number][];
  usage: { calls: number; promptTokens: number; completionTokens: number; costUsd: number | null } | null;
  projectName: string;
  isOwner: boolean | null;
}

function num(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return null;
}

/** Reads the live fields of a run (any shape; missing fields become empty). */
export function readRunProgress(run: object): RunProgress {
  const record = run as Record<string, unknown>;
  const progress = isRecord(record.progress) ? record.progress : {};
  const counters = isRecord(record.counters)
    ? Object.entries(record.counters).flatMap(([name, value]): [string, number][] => {
        const n = num(value);
        return n === null ? [] : [[name, n]];
      })
    : [];
  const usage = isRecord(record.usage)
    ? {
        calls: num(record.usage.calls) ?? 0,
        promptTokens: num(record.usage.prompt_tokens) ?? 0,
        completionTokens: num(record.usage.completion_tokens) ?? 0,
        costUsd: num(record.usage.cost_usd),
      }
    : null;
  return {
    stage: typeof record.stage === "string" ? record.stage : "",
    done: num(progress.done),
    total: num(progress.total),
    counters,
    usage,
    projectName: typeof record.project_name === "string" ? record.project_name : "",
    isOwner: typeof record.is_owner === "boolean" ? record.is_owner : null,
  };
}
