/**
 * What a TRACER run leaves behind: the report (Markdown), the workflow graph and the functional model.
 *
 * Their content is written by an LLM from what the chatbot under test said, so it is untrusted: it is read
 * with runtime checks into plain data here, and the screens render it as text (never as HTML).
 */
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { runKeys } from "../query-keys";
import type { components } from "../schema";
import { isRecord, str, strings } from "../../lib/json";

export type ArtefactName = components["schemas"]["NameEnum"];

export function getArtefact(runId: number, name: ArtefactName, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/{id}/artefacts/{name}/", { params: { path: { id: runId, name } }, signal }));
}

/** An artefact's content, read by `read`; artefacts never change once written. */
export function useArtefact<T>(runId: number, name: ArtefactName, read: (content: unknown) => T, enabled = true) {
  return useQuery({
    queryKey: runKeys.artefact(runId, name),
    queryFn: ({ signal }) => getArtefact(runId, name, signal),
    select: (artefact) => read(artefact.content),
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}

/** `report.md`: the content is the Markdown text. */
export function readReport(content: unknown): string {
  return typeof content === "string" ? content : isRecord(content) ? str(content.text) : "";
}

export interface ModelParameter {
  name: string;
  description: string;
  options: string[];
}

export interface ModelOutput {
  name: string;
  description: string;
}

export interface GraphNode {
  id: string;
  label: string;
  kind: "start" | "functionality";
  category: string;
  description: string;
  parameters: ModelParameter[];
  outputs: ModelOutput[];
  depth: number;
  isJoin: boolean;
}

export interface GraphEdge {
  source: string;
  target: string;
  kind: "entry" | "flow";
}

export interface WorkflowGraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  categories: string[];
  joins: string[];
}

function readParameters(value: unknown): ModelParameter[] {
  return (Array.isArray(value) ? value.filter(isRecord) : []).map((p) => ({
    name: str(p.name),
    description: str(p.description),
    options: strings(p.options),
  }));
}

function readOutputs(value: unknown): ModelOutput[] {
  return (Array.isArray(value) ? value.filter(isRecord) : []).map((o) => ({
    name: str(o.name),
    description: str(o.description),
  }));
}

/**
 * `graph.json` (`engine/tracer/artefacts.py::graph_json`): a start node, one node per functionality with its
 * category, and one edge per parent (a join has several). Edges to unknown nodes are dropped.
 */
export function readGraph(content: unknown): WorkflowGraphData {
  const data = isRecord(content) ? content : {};
  const nodes = (Array.isArray(data.nodes) ? data.nodes.filter(isRecord) : [])
    .map((node): GraphNode => {
      const parameters = readParameters(node.parameters);
      return {
        id: str(node.id),
        label: str(node.label) || str(node.id),
        kind: node.kind === "start" ? "start" : "functionality",
        category: str(node.category),
        description: str(node.description),
        parameters,
        outputs: readOutputs(node.outputs),
        depth: typeof node.depth === "number" ? node.depth : 0,
        isJoin: node.is_join === true,
      };
    })
    .filter((node) => node.id !== "");
  const ids = new Set(nodes.map((node) => node.id));
  const edges = (Array.isArray(data.edges) ? data.edges.filter(isRecord) : [])
    .map((edge): GraphEdge => ({
      source: str(edge.source),
      target: str(edge.target),
      kind: edge.kind === "entry" ? "entry" : "flow",
    }))
    .filter((edge) => ids.has(edge.source) && ids.has(edge.target));
  const categories = strings(data.categories);
  const joins = strings(data.joins);
  return {
    nodes,
    edges,
    categories: categories.length > 0 ? categories : [...new Set(nodes.map((n) => n.category).filter(Boolean))],
    joins: joins.length > 0 ? joins : nodes.filter((n) => n.isJoin).map((n) => n.id),
  };
}
