/**
 * What a run leaves behind, typed by the API schema per artefact name (`Artefact`, discriminated on `name`): TRACER's
 * report (Markdown), workflow graph (`WorkflowGraph`), functional model, transcripts and usage; a bench's figures
 * (`BenchReport`) and report; a SENSEI run's plan.
 *
 * Their text is written by an LLM from what the chatbot under test said, so it is untrusted: the screens render it
 * as text (never as HTML).
 */
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { runKeys } from "../query-keys";
import type { components } from "../schema";

export type Artefact = components["schemas"]["Artefact"];
export type ArtefactName = Artefact["name"];
/** The content of the artefact called `N`. */
export type ArtefactContent<N extends ArtefactName> = Extract<Artefact, { name: N }>["content"];

export type WorkflowGraphData = components["schemas"]["WorkflowGraph"];
export type GraphNode = components["schemas"]["GraphNode"];
export type GraphEdge = components["schemas"]["GraphEdge"];

export function getArtefact(runId: number, name: ArtefactName, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/{id}/artefacts/{name}/", { params: { path: { id: runId, name } }, signal }));
}

/** An artefact's content; artefacts never change once written. The server answers the artefact the URL names. */
export function useArtefact<N extends ArtefactName>(runId: number, name: N, enabled = true) {
  return useQuery({
    queryKey: runKeys.artefact(runId, name),
    queryFn: ({ signal }) => getArtefact(runId, name, signal),
    select: (artefact) => artefact.content as ArtefactContent<N>,
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}
