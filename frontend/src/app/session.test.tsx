import { screen, waitFor } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it, vi } from "vitest";
import { tokenStore } from "../lib/token-store";
import { db } from "../testing/mock-db";
import { renderApp } from "../testing/render-app";
import { server } from "../testing/server";

const STORAGE_KEY = "parley.token";

describe("session handling", () => {
  it("sends a logged-out visitor to the login page, remembering the page", async () => {
    const { location } = renderApp("/account?tab=security");

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().pathname).toBe("/login");
    expect(new URLSearchParams(location().search).get("next")).toBe("/account?tab=security");
  });

  it("clears the token and redirects to login when the API answers 401", async () => {
    tokenStore.set("revoked-token");
    const { location } = renderApp("/account");

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().pathname).toBe("/login");
    expect(new URLSearchParams(location().search).get("next")).toBe("/account");
    expect(tokenStore.get()).toBeNull();
    expect(window.sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    // One message for the ended session, not one per refused request.
    expect(await screen.findAllByText("Session ended")).toHaveLength(1);
  });

  it("ends the session once when a background poll is refused", async () => {
    const { user, location, account } = renderApp("/", { loggedIn: true });
    expect(await screen.findByText("All systems operational")).toBeInTheDocument();

    // The token is revoked elsewhere; the next calls are refused.
    db.revokeToken(account?.token ?? "");
    server.use(
      http.get("/api/health/", () =>
        HttpResponse.json({ detail: "Invalid token.", code: "authentication_failed" }, { status: 401 }),
      ),
    );
    await user.click(screen.getByRole("button", { name: "Check again" }));

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().pathname).toBe("/login");
    expect(screen.getAllByText("Session ended")).toHaveLength(1);
  });

  it("keeps the token in sessionStorage and never in localStorage", async () => {
    const setItem = vi.spyOn(Storage.prototype, "setItem");
    db.addUser("ada@example.com", "correct horse battery");
    const { user } = renderApp("/login");

    await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Log in" }));
    await screen.findByRole("heading", { name: "Welcome to Parley" });

    const token = tokenStore.get();
    expect(token).toMatch(/^token-/);
    expect(window.sessionStorage.getItem(STORAGE_KEY)).toBe(token);
    expect(window.localStorage).toHaveLength(0);
    const writesToLocalStorage = setItem.mock.contexts.filter((storage) => storage === window.localStorage);
    expect(writesToLocalStorage).toEqual([]);
  });

  it("logs out: revokes the token on the server and returns to a plain login page", async () => {
    const { user, location, account } = renderApp("/account", { loggedIn: true });

    await user.click(await screen.findByRole("button", { name: "Log out" }));

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().search).toBe("");
    expect(tokenStore.get()).toBeNull();
    expect(window.sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(db.userForToken(account?.token ?? "")).toBeUndefined();
    expect(screen.queryByText("Session ended")).not.toBeInTheDocument();
  });

  it("sends a logged-in user away from the login page", async () => {
    const { location } = renderApp("/login?next=%2Faccount", { loggedIn: true });

    await waitFor(() => {
      expect(location().pathname).toBe("/account");
    });
  });

  it("shows a not-found page for unknown addresses", async () => {
    renderApp("/no/such/page");

    expect(await screen.findByRole("heading", { name: "Page not found" })).toBeInTheDocument();
  });
});
