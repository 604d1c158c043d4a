import { fireEvent, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";
import { workspaceDb } from "../../testing/workspace-db";
import { SETUP_FRESH_MS } from "./use-setup-progress";

function banner() {
  return screen.findByRole("complementary", { name: "Setup progress" });
}

/** Moves the clock past the setup counts' freshness window (only `Date.now`, so no timer fires early). */
function waitOutFreshness() {
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + SETUP_FRESH_MS + 1_000);
}

/** Steps done without these screens: through the API, the command line or another tab. */
function doThreeStepsElsewhere() {
  workspaceDb.addKey();
  workspaceDb.addConnectorTest(workspaceDb.addConnector().id, true);
  workspaceDb.addProject();
}

function countRequests(pathname: string) {
  const seen = { count: 0 };
  const listener = ({ request }: { request: Request }) => {
    if (request.method === "GET" && new URL(request.url).pathname === pathname) seen.count += 1;
  };
  server.events.on("request:start", listener);
  return {
    seen,
    stop: () => {
      server.events.removeListener("request:start", listener);
    },
  };
}

describe("setup progress banner", () => {
  it("counts steps done elsewhere once the user moves to another screen", async () => {
    const { user } = renderApp("/", { loggedIn: true });
    expect(await banner()).toHaveTextContent("Setup 0/5");

    doThreeStepsElsewhere();
    waitOutFreshness();
    await user.click(screen.getByRole("link", { name: "Account" }));

    expect(await screen.findByText("Setup 3/5")).toBeInTheDocument();
    expect(await banner()).toHaveTextContent("Next: Write or generate a valid profile");
  });

  it("counts steps done elsewhere when the user comes back to the tab", async () => {
    renderApp("/", { loggedIn: true });
    expect(await banner()).toHaveTextContent("Setup 0/5");

    doThreeStepsElsewhere();
    waitOutFreshness();
    fireEvent(document, new Event("visibilitychange", { bubbles: true }));

    expect(await screen.findByText("Setup 3/5")).toBeInTheDocument();
  });

  it("does not ask the server again on every screen change while its answer is fresh", async () => {
    const keyRequests = countRequests("/api/keys/");
    try {
      const { user } = renderApp("/", { loggedIn: true });
      expect(await banner()).toHaveTextContent("Setup 0/5");
      expect(keyRequests.seen.count).toBe(1);

      workspaceDb.addKey();
      await user.click(screen.getByRole("link", { name: "Account" }));
      expect(await screen.findByRole("heading", { name: "Account" })).toBeInTheDocument();

      expect(keyRequests.seen.count).toBe(1);
      expect(await banner()).toHaveTextContent("Setup 0/5");
    } finally {
      keyRequests.stop();
    }
  });
});
