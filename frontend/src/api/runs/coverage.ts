/**
 * The coverage map: a SENSEI run's conversations over a TRACER run's graph (`backend/runs/coverage.py`, the
 * engine's `engine/regression/coverage.py`), and the owner's action that drafts profiles for functionalities no
 * conversation reached (a short `profile_draft` run; the drafts land in the project's test center).
 *
 * Node names, descriptions and the graph come from an LLM reading the chatbot's answers: screens render them as text.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { runKeys } from "../query-keys";
import type { components } from "../schema";

export type RunCoverage = components["schemas"]["RunCoverage"];
export type CoverageNode = components["schemas"]["CoverageNode"];

export function getCoverage(runId: number, tracer: number | null, signal?: AbortSignal) {
  const query = tracer === null ? {} : { tracer };
  return unwrap(api.GET("/api/runs/{id}/coverage/", { params: { path: { id: runId }, query }, signal }));
}

/** The run's coverage map over `tracer` (null: the project's latest finished TRACER run), with that run's graph. */
export function useCoverage(runId: number, tracer: number | null) {
  return useQuery({
    queryKey: runKeys.coverage(runId, tracer),
    queryFn: ({ signal }) => getCoverage(runId, tracer, signal),
    enabled: runId > 0,
    retry: false,
  });
}

/** Starts the drafting run for the chosen functionalities; the caller follows the run it returns. */
export function useDraftProfiles(runId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ functionalities, tracer }: { functionalities: string[]; tracer: number }) =>
      unwrap(
        api.POST("/api/runs/{id}/coverage/drafts/", {
          params: { path: { id: runId } },
          body: { functionalities, tracer },
        }),
      ),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
    },
  });
}

/** The badge a node of the map carries, and its colour: failures red, reached green, unreached grey. */
export function coverageMark(node: CoverageNode, decided: boolean): { text: string; color: string } {
  if (!node.decidable || !decided) return { text: "not decidable", color: "yellow" };
  if (node.failed > 0) return { text: `${String(node.reached)} reached · ${String(node.failed)} failed`, color: "red" };
  if (node.reached > 0) return { text: `${String(node.reached)} reached`, color: "teal" };
  return { text: "never reached", color: "gray" };
}
