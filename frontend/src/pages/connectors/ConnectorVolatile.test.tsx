import { screen } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { connectorYaml } from "./connector-yaml";

describe("a connector's volatile values", () => {
  it("shows the stored patterns, sends the edited ones, and names a pattern the server refuses", async () => {
    const connector = workspaceDb.addConnector({ volatile: ["TKT-\\d+"] });
    const sent: unknown[] = [];
    server.use(
      http.patch(`/api/connectors/${String(connector.id)}/`, async ({ request }) => {
        const body = (await request.json()) as { volatile?: string[] };
        sent.push(body.volatile);
        if (body.volatile?.includes("table ("))
          return HttpResponse.json(
            {
              detail: "Pattern 2 `table (`: not a valid regular expression.",
              code: "invalid",
              fields: { volatile: ["Pattern 2 `table (`: not a valid regular expression."] },
            },
            { status: 400 },
          );
        return HttpResponse.json({ ...connector, secrets: undefined, volatile: body.volatile ?? [] });
      }),
    );
    const { user } = renderApp(`/connectors/${String(connector.id)}`, { loggedIn: true });

    const patterns = await screen.findByRole("textbox", { name: "Values that change in every conversation" });
    expect(patterns).toHaveValue("TKT-\\d+");
    await user.click(patterns);
    await user.keyboard("{End}{Enter}table (");
    await user.click(screen.getByRole("button", { name: "Save connector" }));
    expect(await screen.findByText("Pattern 2 `table (`: not a valid regular expression.")).toBeInTheDocument();

    await user.clear(patterns);
    await user.type(patterns, "TKT-\\d+{Enter}table [[a-z]+");
    await user.click(screen.getByRole("button", { name: "Save connector" }));
    await screen.findByText("Connector saved");
    expect(sent).toEqual([
      ["TKT-\\d+", "table ("],
      ["TKT-\\d+", "table [a-z]+"],
    ]);
  }, 15_000);
});

describe("a connector file in the YAML mode", () => {
  it("keeps the connector's volatile patterns, so saving the file does not drop them", () => {
    const technology = { name: "demo", description: "", parameters: [], json_schema: {}, example: { bot: "pizza" } };
    const stored = workspaceDb.addConnector({ volatile: ["TKT-\\d+"] });
    const text = connectorYaml(technology, stored);
    expect(parse(text)).toEqual({ technology: "demo", volatile: ["TKT-\\d+"], bot: "pizza" });
    expect(connectorYaml(technology as never, null)).not.toContain("volatile");
  });
});
