import { screen } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";

function zipInput(): HTMLInputElement {
  const input = document.querySelector<HTMLInputElement>('input[type="file"][accept=".zip,application/zip"]');
  if (input === null) throw new Error("no zip input");
  return input;
}

describe("project files as a zip", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("downloads the project's export under the project's name", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    const asked: string[] = [];
    server.use(
      http.get("/api/projects/:pid/export/", ({ request }) => {
        asked.push(new URL(request.url).pathname);
        return HttpResponse.arrayBuffer(new TextEncoder().encode("PK").buffer, {
          headers: { "Content-Type": "application/zip" },
        });
      }),
    );
    const saved: string[] = [];
    Object.assign(URL, { createObjectURL: () => "blob:archive", revokeObjectURL: () => undefined });
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Export as zip" }));
    await vi.waitFor(() => {
      expect(saved).toEqual([`parley-project-${String(project.id)}.zip`]);
    });
    expect(asked).toEqual([`/api/projects/${String(project.id)}/export/`]);
  });

  it("imports a zip and says what was stored and what was skipped, as text", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    server.use(
      http.post("/api/projects/:pid/import/", () =>
        HttpResponse.json(
          {
            profiles: [{ file: "profiles/pizza_order.yaml", valid: true }],
            rules: [],
            campaigns: [
              { file: "campaigns/a.yaml", valid: true },
              { file: "campaigns/b.yaml", valid: true },
            ],
            personalities: [{ file: "personalities/night-owl.yaml", valid: true }],
            skipped: [{ file: "<img src=x onerror=alert(1)>.txt", why: "neither a profile, a rule nor a campaign" }],
          },
          { status: 201 },
        ),
      ),
    );
    const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });
    await screen.findByRole("button", { name: "Import a zip" });

    await user.upload(zipInput(), new File(["PK"], "project.zip", { type: "application/zip" }));
    expect(
      await screen.findByText(
        "Imported 1 profile, 0 rules, 2 campaigns, 1 personality. Skipped <img src=x onerror=alert(1)>.txt " +
          "(neither a profile, a rule nor a campaign).",
      ),
    ).toBeInTheDocument();
    expect(document.querySelector("img[src=x]")).toBeNull();
  });

  it("shows the refused file and line when an archive is refused", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject();
    const message = "campaigns/broken.yaml, line 4: unknown attack 'amnezia'. Nothing was imported.";
    server.use(
      http.post("/api/projects/:pid/import/", () =>
        HttpResponse.json({ detail: "Invalid input.", code: "invalid", fields: { file: [message] } }, { status: 400 }),
      ),
    );
    const { user } = renderApp(`/projects/${String(project.id)}`, { loggedIn: true });
    await screen.findByRole("button", { name: "Import a zip" });

    await user.upload(zipInput(), new File(["PK"], "project.zip", { type: "application/zip" }));
    expect(await screen.findByText("Nothing was imported")).toBeInTheDocument();
    expect(screen.getByText(message)).toBeInTheDocument();
  });

  it("lets a visitor of a public project export but not import", async () => {
    workspaceDb.addKey();
    workspaceDb.addConnector();
    const project = workspaceDb.addProject({ public: true, is_owner: false });
    renderApp(`/projects/${String(project.id)}`, { loggedIn: true });

    expect(await screen.findByRole("button", { name: "Export as zip" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Import a zip" })).toBeNull();
  });
});
