import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { workspaceDb } from "../../testing/workspace-db";

describe("connector form", () => {
  it("generates the form from the technology, shows server errors under fields, and creates the connector", async () => {
    const { user, location } = renderApp("/connectors/new", { loggedIn: true });

    await user.type(await screen.findByLabelText(/^Name/), "Pizza bot");
    await user.click(screen.getByRole("combobox", { name: /Technology/ }));
    await user.click(await screen.findByRole("option", { name: "demo", hidden: true }));
    const bot = await screen.findByLabelText(/^bot/);
    await user.type(bot, "pasta");
    await user.click(screen.getByRole("button", { name: "Create connector" }));
    expect(await screen.findByText("No reference chatbot named that.")).toBeInTheDocument();

    await user.clear(bot);
    await user.type(bot, "pizza");
    await user.click(screen.getByRole("button", { name: "Create connector" }));

    expect(await screen.findByRole("heading", { name: "Test the connection" })).toBeInTheDocument();
    expect(location().pathname).toMatch(/^\/connectors\/\d+$/);
    expect(workspaceDb.state.connectors[0]?.params).toEqual({ bot: "pizza" });
  }, 15_000);

  it("keeps stored secrets out of the form and tests the connection, showing replies as text", async () => {
    const connector = workspaceDb.addConnector(
      { name: "Rasa", technology: "rasa", params: { base_url: "http://rasa:5005" } },
      { token: "s3cret-token" },
    );
    const { user } = renderApp(`/connectors/${String(connector.id)}`, { loggedIn: true });

    const token = await screen.findByLabelText(/^token/);
    expect(token).toHaveValue("");
    expect(token).toHaveAttribute("placeholder", "set — leave blank to keep");
    expect(document.body.textContent).not.toContain("s3cret-token");

    await user.click(screen.getByRole("button", { name: "Test connection" }));
    const result = await screen.findByRole("region", { name: "Connection test result" }, { timeout: 5000 });
    expect(within(result).getByText("Connected")).toBeInTheDocument();
    expect(within(result).getByText("Latency: 0.25 s")).toBeInTheDocument();
    // The chatbot's HTML is text, never markup.
    expect(within(result).getByText("<img src=x onerror=alert(1)>What size?")).toBeInTheDocument();
    expect(result.querySelector("img")).toBeNull();
    expect(within(result).getByRole("button", { name: "Large" })).toBeInTheDocument();
    expect(within(result).getByText('{"text": "<b>raw</b>"}')).toBeInTheDocument();
    expect(result.querySelector("b")).toBeNull();
  }, 15_000);
});
