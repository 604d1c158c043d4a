/**
 * TRACER's workflow graph for tests, as the API serves it (`WorkflowGraph`, `backend/engine/tracer/documents.py`):
 * every field present, with the fields a test cares about given.
 */
import type { GraphEdge, GraphNode, WorkflowGraphData } from "../api/runs/artefacts";

export const START: GraphNode = graphNode({ id: "__start__", label: "Start", kind: "start" });

export function graphNode(fields: Partial<GraphNode> & { id: string }): GraphNode {
  return {
    label: fields.id,
    kind: "functionality",
    category: "",
    description: "",
    parameters: [],
    outputs: [],
    depth: 0,
    is_root: false,
    is_join: false,
    found_at: [],
    ...fields,
  };
}

/** A graph of `nodes` and `edges`; its categories and joins read from the nodes, as the server lists them. */
export function workflowGraph(nodes: GraphNode[], edges: GraphEdge[]): WorkflowGraphData {
  return {
    nodes,
    edges,
    categories: [...new Set(nodes.map((node) => node.category).filter(Boolean))],
    joins: nodes.filter((node) => node.is_join).map((node) => node.id),
  };
}
