/**
 * The interactive TRACER workflow graph: React Flow with the layered layout of `layout.ts` (categories as group
 * boxes, every join edge drawn), pan and zoom, a details panel for the clicked functionality (its parameters
 * with their options, and its outputs), and SVG/PNG export.
 *
 * It fits every node in view when it appears and again when its box changes size, until the user pans or zooms.
 * From the keyboard: Tab reaches the functionalities in reading order, the arrow keys follow the graph (right to
 * what a functionality leads to, left to what leads to it, up and down within a column), Enter or Space opens the
 * details and Escape closes them.
 *
 * Every label comes from the model an LLM inferred from the chatbot's answers: all of it is rendered as text.
 */
import "@xyflow/react/dist/style.css";
import {
  Badge,
  Box,
  Button,
  CloseButton,
  Group,
  Paper,
  ScrollArea,
  Stack,
  Table,
  Text,
  Title,
  useComputedColorScheme,
} from "@mantine/core";
import {
  Background,
  Controls,
  getNodesBounds,
  getViewportForBounds,
  Handle,
  MiniMap,
  type NodeProps,
  type NodeTypes,
  Panel,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useNodesInitialized,
  useReactFlow,
} from "@xyflow/react";
import { toPng, toSvg } from "html-to-image";
import { type KeyboardEvent, type RefObject, useEffect, useMemo, useRef, useState } from "react";
import type { GraphNode, WorkflowGraphData } from "../../api/runs/artefacts";
import { counted } from "../../lib/text";
import {
  type FunctionalityNodeData,
  type GroupNodeData,
  layoutWorkflow,
  type NavigationKey,
  neighbour,
  type WorkflowNode,
} from "./layout";

const FIT_VIEW = { padding: 0.12 };
/** What the keys do on a functionality here: nodes are never selected to be moved or deleted. */
const NODE_KEYS = "Enter or Space shows its details; the arrow keys follow the graph.";
const ARIA_LABELS = {
  "node.a11yDescription.default": NODE_KEYS,
  "node.a11yDescription.keyboardDisabled": NODE_KEYS,
};
const NAVIGATION_KEYS = new Set<string>(["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "Home", "End"]);

/** The functionality node that has (or contains) the keyboard focus, by its id. */
function focusedNodeId(target: EventTarget): string | null {
  const element = target instanceof HTMLElement ? target.closest<HTMLElement>(".react-flow__node") : null;
  return element?.dataset.id ?? null;
}

/**
 * Fits every node in view once React Flow has measured them, and again whenever the graph's box changes size (the
 * details panel opening, the window resizing), until the user moves the view themselves.
 */
function useFitWhileUntouched(container: RefObject<HTMLDivElement | null>, layoutKey: unknown) {
  const { fitView } = useReactFlow();
  const initialised = useNodesInitialized();
  const touched = useRef(false);
  useEffect(() => {
    if (initialised && !touched.current) void fitView(FIT_VIEW);
  }, [initialised, fitView, layoutKey]);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      if (!touched.current) void fitView(FIT_VIEW);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, [container, fitView]);
  return {
    /** React Flow's onMoveStart: a move with an input event is the user's; fitting and focusing have none. */
    onMoveStart: (event: unknown) => {
      if (event) touched.current = true;
    },
  };
}

/** A badge drawn on a functionality (the coverage map's counts): its text and a Mantine colour name. */
export interface NodeMark {
  text: string;
  color: string;
}

function FunctionalityNode({
  data,
  selected,
}: NodeProps<WorkflowNode & { data: FunctionalityNodeData & { mark?: NodeMark } }>) {
  const node = data.node;
  const mark = data.mark;
  const edge = mark ? `${mark.color}-${selected ? "8" : "6"}` : selected ? "blue-6" : "blue-4";
  return (
    <Box
      data-testid={`graph-node-${node.id}`}
      aria-label={`Functionality ${node.label}${mark ? `, ${mark.text}` : ""}`}
      style={{
        width: "100%",
        height: "100%",
        padding: "6px 10px",
        borderRadius: 8,
        border: `${selected || mark ? "2px" : "1px"} solid var(--mantine-color-${edge})`,
        background: "var(--mantine-color-blue-light)",
        overflow: "hidden",
        cursor: "pointer",
      }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <Group gap={4} wrap="nowrap" justify="space-between">
        <Text size="xs" fw={700} truncate="end">
          {node.label}
        </Text>
        {node.is_join && (
          <Badge size="xs" color="grape" variant="filled" style={{ flexShrink: 0 }}>
            join
          </Badge>
        )}
        {mark && (
          <Badge size="xs" color={mark.color} variant="filled" style={{ flexShrink: 0 }}>
            {mark.text}
          </Badge>
        )}
      </Group>
      <Text size="10px" c="dimmed" lineClamp={2}>
        {node.description}
      </Text>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </Box>
  );
}

function StartNode() {
  return (
    <Box
      // Named by its React Flow wrapper ("Start of a conversation", an image).
      style={{ width: "100%", height: "100%", borderRadius: "50%", background: "var(--mantine-color-text)" }}
    >
      <Handle type="source" position={Position.Right} isConnectable={false} style={{ opacity: 0 }} />
    </Box>
  );
}

function CategoryNode({ data }: NodeProps<WorkflowNode & { data: GroupNodeData }>) {
  return (
    <Box
      data-testid={`graph-group-${data.category}`}
      style={{
        width: "100%",
        height: "100%",
        borderRadius: 12,
        border: "1px dashed var(--mantine-color-gray-5)",
        background: "var(--mantine-color-gray-light)",
        padding: "4px 10px",
      }}
    >
      <Text size="xs" fw={600} c="dimmed" tt="uppercase">
        {data.category}
      </Text>
    </Box>
  );
}

const NODE_TYPES: NodeTypes = {
  functionality: FunctionalityNode,
  start: StartNode,
  category: CategoryNode,
};

const EXPORT_WIDTH = 1600;
const EXPORT_HEIGHT = 1000;

function download(dataUrl: string, filename: string) {
  const link = document.createElement("a");
  link.href = dataUrl;
  link.download = filename;
  link.click();
}

function ExportButtons({ container, filename }: { container: RefObject<HTMLDivElement | null>; filename: string }) {
  const { getNodes } = useReactFlow();
  const [busy, setBusy] = useState<"svg" | "png" | null>(null);
  const dark = useComputedColorScheme("light") === "dark";

  async function save(format: "svg" | "png") {
    const viewport = container.current?.querySelector<HTMLElement>(".react-flow__viewport");
    if (!viewport) return;
    setBusy(format);
    try {
      const bounds = getNodesBounds(getNodes());
      const view = getViewportForBounds(bounds, EXPORT_WIDTH, EXPORT_HEIGHT, 0.2, 2, 0.05);
      const options = {
        backgroundColor: dark ? "#1a1b1e" : "#ffffff",
        width: EXPORT_WIDTH,
        height: EXPORT_HEIGHT,
        style: {
          width: `${String(EXPORT_WIDTH)}px`,
          height: `${String(EXPORT_HEIGHT)}px`,
          transform: `translate(${String(view.x)}px, ${String(view.y)}px) scale(${String(view.zoom)})`,
        },
      };
      const url = format === "svg" ? await toSvg(viewport, options) : await toPng(viewport, options);
      download(url, `${filename}.${format}`);
    } finally {
      setBusy(null);
    }
  }

  return (
    <Group gap={4}>
      <Button size="compact-xs" variant="default" loading={busy === "svg"} onClick={() => void save("svg")}>
        Export SVG
      </Button>
      <Button size="compact-xs" variant="default" loading={busy === "png"} onClick={() => void save("png")}>
        Export PNG
      </Button>
    </Group>
  );
}

/** The clicked functionality: description, parameters with their options, outputs. */
export function FunctionalityDetails({ node, onClose }: { node: GraphNode; onClose: () => void }) {
  return (
    <Paper withBorder p="sm" w={{ base: "100%", md: 340 }} role="region" aria-label="Functionality details">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={3} size="h5" style={{ overflowWrap: "anywhere" }}>
            {node.label}
          </Title>
          <CloseButton aria-label="Close details" onClick={onClose} />
        </Group>
        <Group gap={4}>
          {node.category && <Badge variant="light">{node.category}</Badge>}
          {node.is_join && (
            <Badge color="grape" variant="light">
              join
            </Badge>
          )}
          <Text size="xs" c="dimmed" ff="monospace">
            {node.id}
          </Text>
        </Group>
        {node.description && (
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            {node.description}
          </Text>
        )}
        <Title order={4} size="h6">
          Parameters
        </Title>
        {node.parameters.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Table fz="xs" withRowBorders>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Options</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {node.parameters.map((parameter) => (
                <Table.Tr key={parameter.name}>
                  <Table.Td>
                    <Text size="xs" fw={600} ff="monospace">
                      {parameter.name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {parameter.description}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    {parameter.options.length === 0 ? (
                      <Text size="xs" c="dimmed">
                        free text
                      </Text>
                    ) : (
                      <Group gap={4}>
                        {parameter.options.map((option) => (
                          <Badge key={option} size="xs" variant="outline" tt="none">
                            {option}
                          </Badge>
                        ))}
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Title order={4} size="h6">
          Outputs
        </Title>
        {node.outputs.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Stack gap={2} component="ul" m={0} pl="md">
            {node.outputs.map((output) => (
              <Text component="li" size="xs" key={output.name}>
                <Text span ff="monospace" fw={600} size="xs">
                  {output.name}
                </Text>
                {output.description ? ` — ${output.description}` : ""}
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

interface WorkflowGraphProps {
  data: WorkflowGraphData;
  /** Base name of exported files. */
  filename?: string;
  height?: number;
  /** Badges on functionalities, by node id (the coverage map's reached and failed counts). */
  marks?: Readonly<Record<string, NodeMark>>;
}

function WorkflowGraphInner({ data, filename = "workflow", height = 560, marks }: WorkflowGraphProps) {
  const layout = useMemo(() => layoutWorkflow(data), [data]);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = data.nodes.find((node) => node.id === selectedId && node.kind === "functionality") ?? null;
  const nodes = useMemo(
    () =>
      layout.nodes.map((node) => {
        const mark = node.type === "functionality" ? marks?.[node.id] : undefined;
        const marked = mark ? { ...node, data: { ...node.data, mark } } : node;
        return node.id === selectedId ? { ...marked, selected: true } : marked;
      }),
    [layout, selectedId, marks],
  );
  const container = useRef<HTMLDivElement>(null);
  const colorMode = useComputedColorScheme("light");
  const functionalities = data.nodes.filter((node) => node.kind === "functionality").length;
  const { onMoveStart } = useFitWhileUntouched(container, layout);

  const focusNode = (id: string) => {
    const element = [...(container.current?.querySelectorAll<HTMLElement>(".react-flow__node") ?? [])].find(
      (candidate) => candidate.dataset.id === id,
    );
    element?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === "Escape" && selectedId !== null) {
      event.preventDefault();
      const closed = selectedId;
      setSelectedId(null);
      focusNode(closed);
      return;
    }
    const id = focusedNodeId(event.target);
    if (id === null || !layout.centres.has(id)) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      setSelectedId(id);
    } else if (NAVIGATION_KEYS.has(event.key)) {
      event.preventDefault();
      const next = neighbour(data, layout, id, event.key as NavigationKey);
      if (next !== null) focusNode(next);
    }
  };

  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {`${counted(functionalities, "functionality", "functionalities")} in ${counted(
          data.categories.length,
          "category",
          "categories",
        )}, ${counted(data.joins.length, "join")}. Drag to pan, scroll to zoom, click a functionality for its details. Keyboard: Tab to a functionality, arrow keys to follow the graph, Enter for its details.`}
      </Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <Box
          ref={container}
          style={{ flex: 1, minWidth: 320, height, border: "1px solid var(--mantine-color-default-border)" }}
          role="figure"
          aria-label="Workflow graph"
          onKeyDown={onKeyDown}
        >
          <ReactFlow
            nodes={nodes}
            edges={layout.edges}
            nodeTypes={NODE_TYPES}
            colorMode={colorMode}
            fitView
            fitViewOptions={FIT_VIEW}
            onMoveStart={onMoveStart}
            edgesFocusable={false}
            deleteKeyCode={null}
            minZoom={0.1}
            maxZoom={2.5}
            nodesDraggable={false}
            nodesConnectable={false}
            elementsSelectable
            onNodeClick={(_event, node) => {
              if (node.type === "functionality") setSelectedId(node.id);
            }}
            onPaneClick={() => {
              setSelectedId(null);
            }}
            proOptions={{ hideAttribution: true }}
            ariaLabelConfig={ARIA_LABELS}
          >
            <Background />
            <Controls showInteractive={false} />
            <MiniMap pannable zoomable />
            <Panel position="top-right">
              <ExportButtons container={container} filename={filename} />
            </Panel>
          </ReactFlow>
        </Box>
        {selected && (
          <ScrollArea.Autosize mah={height}>
            <FunctionalityDetails
              node={selected}
              onClose={() => {
                setSelectedId(null);
              }}
            />
          </ScrollArea.Autosize>
        )}
      </Group>
    </Stack>
  );
}

export function WorkflowGraph(props: WorkflowGraphProps) {
  return (
    <ReactFlowProvider>
      <WorkflowGraphInner {...props} />
    </ReactFlowProvider>
  );
}
