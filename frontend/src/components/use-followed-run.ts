/**
 * Follows a run started by a button (key test, model list, connection test) until it has finished: the server
 * pushes its changes (api/runs/live.ts), so the result shows the moment the worker records it.
 */
import { useQuery } from "@tanstack/react-query";
import { useLiveRun } from "../api/runs/live";
import { isRunActive, runQueryOptions } from "../api/runs/runs";

export function useFollowedRun(runId: number | null) {
  const query = useQuery({ ...runQueryOptions(runId ?? 0), enabled: runId !== null });
  const run = runId === null ? undefined : query.data;
  /** Started and not finished yet (including while the first read is on its way). */
  const active = runId !== null && (run === undefined ? !query.isError : isRunActive(run.status));
  const live = useLiveRun(active ? runId : null);
  return { run, active, live, error: query.error, refetch: query.refetch };
}
