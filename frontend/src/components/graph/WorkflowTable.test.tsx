import { MantineProvider } from "@mantine/core";
import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { graphNode, START, workflowGraph } from "../../testing/graph";
import { WorkflowTable } from "./WorkflowTable";

// A pizza bot's model: `confirm_order` joins the two ways of choosing a pizza; a label carries hostile HTML.
const GRAPH = workflowGraph(
  [
    START,
    graphNode({
      id: "greet",
      label: "Greet",
      kind: "functionality",
      category: "Ordering",
      description: "Greets",
      depth: 0,
    }),
    graphNode({
      id: "choose",
      label: "Choose <b>pizza</b>",
      kind: "functionality",
      category: "Ordering",
      description: "Offers the menu",
      parameters: [{ name: "pizza_type", description: "which pizza", options: ["Margarita", "Carbonara"] }],
      depth: 1,
    }),
    graphNode({
      id: "custom",
      label: "Build custom pizza",
      kind: "functionality",
      category: "Ordering",
      parameters: [{ name: "toppings", description: "", options: [] }],
      depth: 1,
    }),
    graphNode({
      id: "confirm",
      label: "Confirm order",
      kind: "functionality",
      category: "Checkout",
      description: "Confirms the order",
      outputs: [{ name: "total_price", description: "price of the order" }],
      depth: 2,
      is_join: true,
    }),
  ],
  [
    { source: "__start__", target: "greet", kind: "entry" },
    { source: "greet", target: "choose", kind: "flow" },
    { source: "greet", target: "custom", kind: "flow" },
    { source: "choose", target: "confirm", kind: "flow" },
    { source: "custom", target: "confirm", kind: "flow" },
  ],
);

function rowOf(name: string) {
  const header = screen.getByRole("rowheader", { name: new RegExp(`^${name}`) });
  const row = header.closest("tr");
  if (row === null) throw new Error(`no row for ${name}`);
  return within(row).getAllByRole("cell");
}

describe("WorkflowTable", () => {
  it("lists every functionality with its category, parameters, outputs and links, in graph order", () => {
    render(
      <MantineProvider>
        <WorkflowTable data={GRAPH} />
      </MantineProvider>,
    );
    const table = screen.getByRole("table", { name: "Workflow table" });
    const names = within(table)
      .getAllByRole("rowheader")
      .map((cell) => cell.textContent);
    expect(names).toEqual(["Greet", "Build custom pizza", "Choose <b>pizza</b>", "Confirm orderjoin"]);
    // Hostile labels stay text.
    expect(table.querySelector("b")).toBeNull();

    const greet = rowOf("Greet");
    expect(greet[4]).toHaveTextContent("Start");
    expect(greet[5]).toHaveTextContent("Build custom pizza");
    expect(greet[5]).toHaveTextContent("Choose <b>pizza</b>");

    const [category, description, parameters] = rowOf("Choose");
    expect(category).toHaveTextContent("Ordering");
    expect(description).toHaveTextContent("Offers the menu");
    expect(parameters).toHaveTextContent("pizza_type: Margarita, Carbonara");
    expect(rowOf("Build custom pizza")[2]).toHaveTextContent("toppings");

    const confirm = rowOf("Confirm order");
    expect(confirm[0]).toHaveTextContent("Checkout");
    expect(confirm[3]).toHaveTextContent("total_price (price of the order)");
    // The join comes after both ways of choosing a pizza and leads nowhere.
    expect(confirm[4]).toHaveTextContent("Build custom pizza");
    expect(confirm[4]).toHaveTextContent("Choose <b>pizza</b>");
    expect(confirm[5]).toHaveTextContent("an end");
  });
});
