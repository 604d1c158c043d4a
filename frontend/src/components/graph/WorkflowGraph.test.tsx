import { MantineProvider } from "@mantine/core";
import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeAll, describe, expect, it } from "vitest";
import { graphNode, START, workflowGraph } from "../../testing/graph";
import { layoutWorkflow, neighbour } from "./layout";
import { WorkflowGraph } from "./WorkflowGraph";

// What `engine/tracer/artefacts.py::graph_json` writes for a pizza bot: two categories, and `confirm_order`
// joins the two ways of choosing a pizza.
const GRAPH = workflowGraph(
  [
    START,
    graphNode({
      id: "greet",
      label: "Greet",
      kind: "functionality",
      category: "Ordering",
      description: "Greets the user",
      parameters: [],
      outputs: [],
      depth: 0,
      is_root: true,
      is_join: false,
    }),
    graphNode({
      id: "choose_predefined_pizza",
      label: "Choose predefined pizza",
      kind: "functionality",
      category: "Ordering",
      description: "Offers the menu",
      parameters: [{ name: "pizza_type", description: "which pizza", options: ["Margarita", "Carbonara"] }],
      outputs: [],
      depth: 1,
      is_root: false,
      is_join: false,
    }),
    graphNode({
      id: "build_custom_pizza",
      label: "Build custom pizza",
      kind: "functionality",
      category: "Ordering",
      description: "Asks for toppings",
      parameters: [{ name: "toppings", description: "", options: ["cheese", "ham"] }],
      outputs: [],
      depth: 1,
      is_root: false,
      is_join: false,
    }),
    graphNode({
      id: "confirm_order",
      label: "Confirm order",
      kind: "functionality",
      category: "Checkout",
      description: "Confirms the order and its price",
      parameters: [],
      outputs: [{ name: "total_price", description: "price of the order" }],
      depth: 2,
      is_root: false,
      is_join: true,
    }),
  ],
  [
    { source: "__start__", target: "greet", kind: "entry" },
    { source: "greet", target: "choose_predefined_pizza", kind: "flow" },
    { source: "greet", target: "build_custom_pizza", kind: "flow" },
    { source: "choose_predefined_pizza", target: "confirm_order", kind: "flow" },
    { source: "build_custom_pizza", target: "confirm_order", kind: "flow" },
  ],
);

type Positioned = ReturnType<typeof layoutWorkflow>["nodes"][number];

/** A node's absolute top-left corner (children are positioned relative to their group). */
function absolute(nodes: Positioned[], id: string) {
  const node = nodes.find((n) => n.id === id);
  if (!node) throw new Error(`no node ${id}`);
  const parent = node.parentId ? nodes.find((n) => n.id === node.parentId) : undefined;
  return {
    x: node.position.x + (parent?.position.x ?? 0),
    y: node.position.y + (parent?.position.y ?? 0),
    width: node.width ?? 0,
    height: node.height ?? 0,
  };
}

describe("layoutWorkflow", () => {
  it("puts each category's functionalities inside one group box", () => {
    const { nodes } = layoutWorkflow(GRAPH);
    const groups = nodes.filter((n) => n.type === "category");
    expect(groups.map((g) => g.id)).toEqual(["category:Checkout", "category:Ordering"]);
    // Groups come before their children, as React Flow requires.
    const firstChild = nodes.findIndex((n) => n.parentId !== undefined);
    expect(firstChild).toBeGreaterThan(nodes.findIndex((n) => n.id === "category:Ordering"));

    for (const id of ["greet", "choose_predefined_pizza", "build_custom_pizza"]) {
      expect(nodes.find((n) => n.id === id)?.parentId).toBe("category:Ordering");
    }
    expect(nodes.find((n) => n.id === "confirm_order")?.parentId).toBe("category:Checkout");
    expect(nodes.find((n) => n.id === "__start__")?.parentId).toBeUndefined();

    for (const child of nodes.filter((n) => n.parentId !== undefined)) {
      const group = nodes.find((n) => n.id === child.parentId);
      expect(child.position.x).toBeGreaterThanOrEqual(0);
      expect(child.position.y).toBeGreaterThanOrEqual(0);
      expect(child.position.x + (child.width ?? 0)).toBeLessThanOrEqual(group?.width ?? 0);
      expect(child.position.y + (child.height ?? 0)).toBeLessThanOrEqual(group?.height ?? 0);
    }
  });

  it("ranks left to right and draws one edge per parent of a join", () => {
    const { nodes, edges } = layoutWorkflow(GRAPH);
    const start = absolute(nodes, "__start__");
    const greet = absolute(nodes, "greet");
    const predefined = absolute(nodes, "choose_predefined_pizza");
    const custom = absolute(nodes, "build_custom_pizza");
    const join = absolute(nodes, "confirm_order");
    expect(greet.x).toBeGreaterThan(start.x);
    expect(predefined.x).toBeGreaterThan(greet.x);
    expect(custom.x).toBeGreaterThan(greet.x);
    expect(join.x).toBeGreaterThan(Math.max(predefined.x, custom.x));
    // The two alternatives sit side by side in the same rank, not on top of each other.
    expect(Math.abs(predefined.y - custom.y)).toBeGreaterThanOrEqual(predefined.height);

    const intoJoin = edges.filter((e) => e.target === "confirm_order");
    expect(intoJoin.map((e) => e.source).sort()).toEqual(["build_custom_pizza", "choose_predefined_pizza"]);
    expect(intoJoin.every((e) => (e.data as { join: boolean }).join)).toBe(true);
    expect(edges).toHaveLength(5);
  });

  it("is deterministic", () => {
    expect(layoutWorkflow(GRAPH)).toEqual(layoutWorkflow(GRAPH));
  });

  it("orders the functionalities as they are read, names them, and leaves only them focusable", () => {
    const layout = layoutWorkflow(GRAPH);
    const functionalities = layout.nodes.filter((n) => n.type === "functionality");
    expect(functionalities[0]?.id).toBe("greet");
    expect(functionalities.at(-1)?.id).toBe("confirm_order");
    expect(functionalities.every((n) => n.focusable === true)).toBe(true);
    expect(layout.nodes.filter((n) => n.type !== "functionality").every((n) => n.focusable === false)).toBe(true);
    expect(functionalities.at(-1)?.ariaLabel).toBe("Functionality Confirm order, category Checkout, join");
  });

  it("sends the arrow keys along the graph", () => {
    const layout = layoutWorkflow(GRAPH);
    const go = (from: string, key: Parameters<typeof neighbour>[3]) => neighbour(GRAPH, layout, from, key);
    const right = go("greet", "ArrowRight");
    expect(["choose_predefined_pizza", "build_custom_pizza"]).toContain(right);
    const other = right === "choose_predefined_pizza" ? "build_custom_pizza" : "choose_predefined_pizza";
    const below = layout.centres.get(other)?.y ?? 0;
    expect(go(right ?? "", below > (layout.centres.get(right ?? "")?.y ?? 0) ? "ArrowDown" : "ArrowUp")).toBe(other);
    expect(go(other, "ArrowRight")).toBe("confirm_order");
    expect(["choose_predefined_pizza", "build_custom_pizza"]).toContain(go("confirm_order", "ArrowLeft"));
    expect(go("greet", "ArrowLeft")).toBeNull(); // the start dot is not a stop
    expect(go("confirm_order", "ArrowRight")).toBeNull();
    expect(go("confirm_order", "Home")).toBe("greet");
    expect(go("greet", "End")).toBe("confirm_order");
  });
});

describe("WorkflowGraph", () => {
  beforeAll(() => {
    // React Flow measures the DOM; jsdom has no layout, so give it the sizes it asks for.
    class DOMMatrixReadOnlyStub {
      m22: number;
      constructor(transform?: string) {
        const scale = /scale\(([\d.]+)\)/.exec(transform ?? "")?.[1];
        this.m22 = scale === undefined ? 1 : Number(scale);
      }
    }
    Object.defineProperty(window, "DOMMatrixReadOnly", { writable: true, value: DOMMatrixReadOnlyStub });
    Object.defineProperties(window.HTMLElement.prototype, {
      offsetHeight: { configurable: true, get: () => 600 },
      offsetWidth: { configurable: true, get: () => 900 },
    });
  });

  it("shows the categories as groups and a clicked functionality's parameters, options and outputs", () => {
    render(
      <MantineProvider>
        <WorkflowGraph data={GRAPH} />
      </MantineProvider>,
    );

    expect(screen.getByText("4 functionalities in 2 categories, 1 join.", { exact: false })).toBeInTheDocument();
    expect(screen.getByTestId("graph-group-Ordering")).toHaveTextContent("Ordering");
    expect(screen.getByTestId("graph-group-Checkout")).toHaveTextContent("Checkout");
    expect(within(screen.getByTestId("graph-node-confirm_order")).getByText("join")).toBeInTheDocument();

    // A click only: d3-zoom reads `event.view` on mousedown, which synthetic pointer events lack in jsdom.
    fireEvent.click(screen.getByText("Build custom pizza"));
    let details = screen.getByRole("region", { name: "Functionality details" });
    expect(within(details).getByText("toppings")).toBeInTheDocument();
    expect(within(details).getByText("cheese")).toBeInTheDocument();
    expect(within(details).getByText("ham")).toBeInTheDocument();

    fireEvent.click(screen.getByText("Confirm order"));
    details = screen.getByRole("region", { name: "Functionality details" });
    expect(within(details).getByText("total_price")).toBeInTheDocument();
    expect(within(details).getByText("Checkout")).toBeInTheDocument();

    fireEvent.click(within(details).getByRole("button", { name: "Close details" }));
    expect(screen.queryByRole("region", { name: "Functionality details" })).not.toBeInTheDocument();
  });

  it("names each category box for screen readers, without offering to select or delete it", () => {
    render(
      <MantineProvider>
        <WorkflowGraph data={GRAPH} />
      </MantineProvider>,
    );
    for (const category of ["Ordering", "Checkout"]) {
      const box = screen.getByRole("group", { name: `Category ${category}` });
      expect(box).toHaveTextContent(category);
      // A box is not focusable, selectable nor deletable: nothing to describe.
      expect(box).toHaveAccessibleDescription("");
    }
    // A functionality says what its keys do here (nodes are never moved or deleted).
    expect(screen.getByRole("group", { name: /^Functionality Greet/ })).toHaveAccessibleDescription(
      "Enter or Space shows its details; the arrow keys follow the graph.",
    );
  });

  it("can be used from the keyboard: focusable named nodes, arrows along the edges, Enter for details", async () => {
    const user = userEvent.setup();
    render(
      <MantineProvider>
        <WorkflowGraph data={GRAPH} />
      </MantineProvider>,
    );
    const node = (name: string) => screen.getByRole("group", { name: new RegExp(`^Functionality ${name}`) });
    expect(node("Greet")).toHaveAttribute("tabindex", "0");
    expect(node("Confirm order")).toHaveAccessibleName("Functionality Confirm order, category Checkout, join");

    // (That Tab lands here is checked in a real browser: jsdom does not move focus on Tab.)
    node("Greet").focus();
    await user.keyboard("{ArrowRight}");
    expect(document.activeElement?.getAttribute("aria-label")).toMatch(/pizza/);
    await user.keyboard("{End}");
    expect(node("Confirm order")).toHaveFocus();
    await user.keyboard("{ArrowLeft}");
    expect(document.activeElement?.getAttribute("aria-label")).toMatch(
      /^Functionality (Choose predefined|Build custom) pizza/,
    );

    await user.keyboard("{Enter}");
    const details = screen.getByRole("region", { name: "Functionality details" });
    expect(within(details).getByRole("heading", { level: 3 }).textContent).toMatch(/pizza$/);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("region", { name: "Functionality details" })).not.toBeInTheDocument();

    node("Confirm order").focus();
    await user.keyboard(" ");
    expect(
      within(screen.getByRole("region", { name: "Functionality details" })).getByText("total_price"),
    ).toBeVisible();
  });
});
