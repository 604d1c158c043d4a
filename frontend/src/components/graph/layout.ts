/**
 * The layered layout of a TRACER workflow graph: dagre ranks the functionalities left to right, each category
 * becomes a group box around its functionalities (a dagre compound node), and every parent → child edge is
 * kept, so a join (a functionality with several parents) gets one edge per parent.
 *
 * The result is plain React Flow nodes and edges: group nodes first, their children positioned relative to them,
 * the functionalities in reading order (left to right, then top to bottom) so that Tab walks the graph the way it is
 * drawn; `neighbour` gives the arrow keys their target.
 */
import { Graph, layout as dagreLayout, type GraphLabel, type NodeLabel } from "@dagrejs/dagre";
import { type Edge, MarkerType, type Node } from "@xyflow/react";
import type { GraphNode, WorkflowGraphData } from "../../api/runs/artefacts";

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 64;
export const START_SIZE = 36;
const GROUP_PADDING = 24;
const GROUP_LABEL = 28;

export interface FunctionalityNodeData extends Record<string, unknown> {
  node: GraphNode;
}

export interface GroupNodeData extends Record<string, unknown> {
  category: string;
}

export type WorkflowNode = Node<FunctionalityNodeData, "functionality" | "start"> | Node<GroupNodeData, "category">;

export interface WorkflowLayout {
  nodes: WorkflowNode[];
  edges: Edge[];
  /** Every functionality's centre, in absolute coordinates, in reading order (what keyboard navigation needs). */
  centres: Map<string, { x: number; y: number }>;
}

/** What a screen reader says for a functionality node. */
export function nodeLabel(node: GraphNode): string {
  return [`Functionality ${node.label}`, node.category && `category ${node.category}`, node.is_join && "join"]
    .filter(Boolean)
    .join(", ");
}

const groupId = (category: string) => `category:${category}`;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function size(node: GraphNode) {
  return node.kind === "start" ? { width: START_SIZE, height: START_SIZE } : { width: NODE_WIDTH, height: NODE_HEIGHT };
}

/** Runs dagre; with `compound` the categories are laid out as clusters. Answers each node's centre. */
function place(data: WorkflowGraphData, compound: boolean): Map<string, { x: number; y: number }> {
  const graph = new Graph<GraphLabel, NodeLabel, object>({ compound, multigraph: false });
  graph.setGraph({ rankdir: "LR", nodesep: 28, ranksep: 80, marginx: 16, marginy: 16 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of data.nodes) graph.setNode(node.id, size(node));
  if (compound) {
    for (const node of data.nodes) {
      if (node.kind !== "functionality" || !node.category) continue;
      if (!graph.hasNode(groupId(node.category))) graph.setNode(groupId(node.category), { width: 0, height: 0 });
      graph.setParent(node.id, groupId(node.category));
    }
  }
  for (const edge of data.edges) graph.setEdge(edge.source, edge.target);
  dagreLayout(graph);
  const centres = new Map<string, { x: number; y: number }>();
  for (const node of data.nodes) {
    const placed = graph.node(node.id);
    centres.set(node.id, { x: placed.x ?? 0, y: placed.y ?? 0 });
  }
  return centres;
}

/** Lays out the graph. Deterministic: the same data gives the same positions. */
export function layoutWorkflow(data: WorkflowGraphData): WorkflowLayout {
  let centres: Map<string, { x: number; y: number }>;
  try {
    centres = place(data, true);
  } catch {
    // Dagre's clustering can fail on some edge patterns across clusters; a flat layout still shows everything.
    centres = place(data, false);
  }

  const absolute = new Map<string, Box>();
  for (const node of data.nodes) {
    const { width, height } = size(node);
    const centre = centres.get(node.id) ?? { x: 0, y: 0 };
    absolute.set(node.id, { x: centre.x - width / 2, y: centre.y - height / 2, width, height });
  }

  // A category's box: around its functionalities, with room for its label.
  const groups = new Map<string, Box>();
  for (const node of data.nodes) {
    if (node.kind !== "functionality" || !node.category) continue;
    const box = absolute.get(node.id);
    if (!box) continue;
    const current = groups.get(node.category);
    const left = Math.min(current?.x ?? Infinity, box.x - GROUP_PADDING);
    const top = Math.min(current?.y ?? Infinity, box.y - GROUP_PADDING - GROUP_LABEL);
    const right = Math.max(current ? current.x + current.width : -Infinity, box.x + box.width + GROUP_PADDING);
    const bottom = Math.max(current ? current.y + current.height : -Infinity, box.y + box.height + GROUP_PADDING);
    groups.set(node.category, { x: left, y: top, width: right - left, height: bottom - top });
  }

  const nodes: WorkflowNode[] = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, box]) => ({
      id: groupId(category),
      type: "category",
      position: { x: box.x, y: box.y },
      data: { category },
      width: box.width,
      height: box.height,
      style: { width: box.width, height: box.height },
      selectable: false,
      draggable: false,
      focusable: false,
      // Named for screen readers; React Flow's description (select, move, delete) does not apply to a box.
      ariaRole: "group" as const,
      ariaLabel: `Category ${category}`,
      domAttributes: { "aria-describedby": undefined },
      zIndex: -1,
    }));

  const ordered = [...data.nodes].sort((a, b) => {
    const first = centres.get(a.id) ?? { x: 0, y: 0 };
    const second = centres.get(b.id) ?? { x: 0, y: 0 };
    return first.x - second.x || first.y - second.y || a.id.localeCompare(b.id);
  });
  for (const node of ordered) {
    const box = absolute.get(node.id) ?? { x: 0, y: 0, width: NODE_WIDTH, height: NODE_HEIGHT };
    const group = node.kind === "functionality" && node.category ? groups.get(node.category) : undefined;
    const functionality = node.kind !== "start";
    nodes.push({
      id: node.id,
      type: functionality ? "functionality" : "start",
      position: group ? { x: box.x - group.x, y: box.y - group.y } : { x: box.x, y: box.y },
      ...(group && { parentId: groupId(node.category) }),
      data: { node },
      width: box.width,
      height: box.height,
      draggable: false,
      connectable: false,
      // Only functionalities take the keyboard focus; the start dot is decoration.
      focusable: functionality,
      selectable: functionality,
      // React Flow describes every node as a "node": each one needs a role that may carry that description.
      ...(functionality
        ? { ariaLabel: nodeLabel(node) }
        : { ariaRole: "img" as const, ariaLabel: "Start of a conversation" }),
    });
  }

  const joins = new Set(data.joins);
  const edges: Edge[] = data.edges.map((edge) => ({
    id: `${edge.source}->${edge.target}`,
    source: edge.source,
    target: edge.target,
    markerEnd: { type: MarkerType.ArrowClosed },
    animated: false,
    className: joins.has(edge.target) ? "workflow-edge-join" : undefined,
    style: joins.has(edge.target) ? { strokeDasharray: "6 3" } : undefined,
    data: { kind: edge.kind, join: joins.has(edge.target) },
  }));

  const functionalityCentres = new Map(
    ordered
      .filter((node) => node.kind === "functionality")
      .map((node) => [node.id, centres.get(node.id) ?? { x: 0, y: 0 }]),
  );
  return { nodes, edges, centres: functionalityCentres };
}

export type NavigationKey = "ArrowRight" | "ArrowLeft" | "ArrowUp" | "ArrowDown" | "Home" | "End";

/**
 * Where an arrow key goes from a functionality: right to the nearest of what it leads to, left to the nearest of
 * what leads to it, up and down to the nearest functionality in the same column; Home and End to the first and
 * last in reading order. Null when there is nothing that way.
 */
export function neighbour(
  data: WorkflowGraphData,
  layout: WorkflowLayout,
  fromId: string,
  key: NavigationKey,
): string | null {
  const ids = [...layout.centres.keys()];
  if (key === "Home") return ids[0] ?? null;
  if (key === "End") return ids.at(-1) ?? null;
  const from = layout.centres.get(fromId);
  if (from === undefined) return null;
  const nearest = (candidates: string[]) =>
    candidates
      .filter((id) => layout.centres.has(id))
      .sort((a, b) => {
        const first = layout.centres.get(a) ?? from;
        const second = layout.centres.get(b) ?? from;
        return Math.abs(first.y - from.y) - Math.abs(second.y - from.y) || first.x - second.x;
      })[0] ?? null;
  if (key === "ArrowRight") return nearest(data.edges.filter((e) => e.source === fromId).map((e) => e.target));
  if (key === "ArrowLeft") return nearest(data.edges.filter((e) => e.target === fromId).map((e) => e.source));
  const down = key === "ArrowDown";
  const column = ids.filter((id) => {
    const centre = layout.centres.get(id);
    return (
      id !== fromId &&
      centre !== undefined &&
      Math.abs(centre.x - from.x) < NODE_WIDTH / 2 &&
      (down ? centre.y > from.y : centre.y < from.y)
    );
  });
  return (
    column.sort((a, b) => {
      const first = layout.centres.get(a) ?? from;
      const second = layout.centres.get(b) ?? from;
      return down ? first.y - second.y : second.y - first.y;
    })[0] ?? null
  );
}
