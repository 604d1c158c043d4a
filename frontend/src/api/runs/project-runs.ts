/**
 * TRACER, SENSEI and check runs of a project, their live events and cancellation.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { useLiveRun } from "./live";
import { mergeEvents, readRunEvent, type RunEvent } from "./run-cache";
import { runKeys } from "../query-keys";
import type { RequestJson } from "../types";
import type { Run } from "./runs";

export { MAX_EVENTS_KEPT, type RunEvent } from "./run-cache";

export type StartRunInput = RequestJson<"/api/projects/{project_id}/runs/", "post">;

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
  return { next_after: page.next_after, results: page.results.map(readRunEvent) };
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

/**
 * The run's events, accumulated: each fetch asks only for what came after the last event held, and merges with
 * what is held once it answers (the live stream may have added lines meanwhile).
 */
export function runEventsQueryOptions(runId: number, read: () => RunEvent[] | undefined) {
  return queryOptions({
    queryKey: runKeys.events(runId),
    queryFn: async ({ signal }) => {
      const last = read()?.at(-1);
      const page = await getRunEvents(runId, last === undefined ? null : last.id, signal);
      return mergeEvents(read() ?? [], page.results);
    },
    staleTime: 0,
  });
}

/** The run's log; while `live`, the server pushes new lines as they are written (live.ts). */
export function useRunEvents(runId: number, live: boolean) {
  const queryClient = useQueryClient();
  useLiveRun(live ? runId : null);
  return useQuery(runEventsQueryOptions(runId, () => queryClient.getQueryData<RunEvent[]>(runKeys.events(runId))));
}

/** How far a run is, 0…100, or null while it has not said how much there is to do. */
export function progressPercent(run: Pick<Run, "progress">): number | null {
  const { done, total } = run.progress;
  return done !== undefined && total !== undefined && total > 0
    ? Math.min(100, Math.round((done / total) * 100))
    : null;
}
