/** Follows a run started by a button (key test, model list, connection test) until it has finished. */
import { useQuery } from "@tanstack/react-query";
import { isRunActive, runQueryOptions } from "../api/runs";

export function useFollowedRun(runId: number | null) {
  const query = useQuery({ ...runQueryOptions(runId ?? 0), enabled: runId !== null });
  const run = runId === null ? undefined : query.data;
  return {
    run,
    /** Started and not finished yet (including while the first read is on its way). */
    active: runId !== null && (run === undefined ? !query.isError : isRunActive(run.status)),
    error: query.error,
    refetch: query.refetch,
  };
}
