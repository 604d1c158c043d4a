import { screen, within } from "@testing-library/react";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";

/** Opens the SENSEI dialog for one valid profile and records every start request's body. */
async function openSensei() {
  workspaceDb.addKey();
  workspaceDb.addConnector();
  const project = workspaceDb.addProject();
  workspaceDb.addProfile(project.id, { name: "order_pizza" });
  const sent: Record<string, unknown>[] = [];
  server.use(
    http.post("/api/projects/:pid/runs/", async ({ request }) => {
      sent.push((await request.clone().json()) as Record<string, unknown>);
      return undefined; // fall through to the shared handler, which starts the run
    }),
  );
  const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });
  await user.click(await screen.findByRole("checkbox", { name: "Select order_pizza" }));
  await user.click(screen.getByRole("button", { name: "Run SENSEI" }));
  const dialog = await screen.findByRole("dialog", { name: "Run SENSEI" });
  return { user, dialog, sent };
}

describe("the SENSEI start dialog", () => {
  it("sends the repeats the user chose, so each conversation runs that many times", async () => {
    const { user, dialog, sent } = await openSensei();
    const repeats = within(dialog).getByRole("textbox", { name: "Repeats" });
    expect(repeats).toHaveValue("1");
    await user.clear(repeats);
    await user.type(repeats, "3");
    await user.click(within(dialog).getByRole("button", { name: "Start SENSEI" }));

    expect(await within(dialog).findByRole("status", { name: "Run progress" })).toBeInTheDocument();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "sensei", repeats: 3 });
  }, 15_000);

  it("keeps repeats within what the server accepts", async () => {
    const { user, dialog, sent } = await openSensei();
    const repeats = within(dialog).getByRole("textbox", { name: "Repeats" });
    await user.clear(repeats);
    await user.type(repeats, "25"); // the 5 would make 25: the field refuses it
    expect(repeats).toHaveValue("2");
    await user.click(within(dialog).getByRole("button", { name: "Start SENSEI" }));

    expect(await within(dialog).findByRole("status", { name: "Run progress" })).toBeInTheDocument();
    expect(sent[0]).toMatchObject({ repeats: 2 });
  }, 15_000);
});
