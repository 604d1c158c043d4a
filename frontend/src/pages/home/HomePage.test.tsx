import { screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { db } from "../../testing/mock-db";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";

function statusCard() {
  return screen.findByRole("region", { name: "System status" });
}

function rowOf(card: HTMLElement, component: string) {
  const row = within(card).getByRole("cell", { name: component }).closest("tr");
  if (row === null) throw new Error(`no row for ${component}`);
  return row;
}

describe("home page", () => {
  it("welcomes the user and shows every component of the system as working", async () => {
    renderApp("/", { loggedIn: true });

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    const card = await statusCard();
    expect(await within(card).findByText("All systems operational")).toBeInTheDocument();
    expect(rowOf(card, "Database")).toHaveTextContent("OK");
    expect(rowOf(card, "Message broker")).toHaveTextContent("OK");
    expect(rowOf(card, "Workers")).toHaveTextContent("1 online");
  });

  it("shows which component is down when the backend reports degraded (HTTP 503)", async () => {
    db.health = {
      status: "degraded",
      database: { ok: true, detail: "ok" },
      broker: { ok: true, detail: "ok" },
      workers: { ok: false, count: 0, detail: "No worker answered the ping." },
    };
    renderApp("/", { loggedIn: true });

    const card = await statusCard();
    expect(await within(card).findByText("Degraded")).toBeInTheDocument();
    expect(rowOf(card, "Workers")).toHaveTextContent("Down");
    expect(rowOf(card, "Workers")).toHaveTextContent("0 online: No worker answered the ping.");
    expect(rowOf(card, "Database")).toHaveTextContent("OK");
  });

  it("says so when the check itself fails", async () => {
    server.use(http.get("/api/health/", () => new HttpResponse("<html>Bad Gateway</html>", { status: 502 })));
    renderApp("/", { loggedIn: true });

    const card = await statusCard();
    expect(await within(card).findByRole("alert")).toHaveTextContent("HTTP 502");
  });
});
