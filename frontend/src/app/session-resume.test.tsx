import { cleanup, screen } from "@testing-library/react";
import { http } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { tokenStore } from "../lib/token-store";
import { CSRF_COOKIE, db, REMEMBER_COOKIE, REMEMBERED_COOKIE } from "../testing/mock-db";
import { renderApp } from "../testing/render-app";
import { server } from "../testing/server";
import { resetSessionResume } from "./session-resume";

const STORAGE_KEY = "parley.token";

/** Every test starts as a new tab of the browser: no token in memory or sessionStorage, nothing tried yet. */
function newTab(url: string) {
  cleanup();
  tokenStore.clear("logout");
  window.sessionStorage.clear();
  resetSessionResume();
  return renderApp(url);
}

/** The resume requests the tab sends, with the CSRF header each carried. */
function recordResumes() {
  const calls: (string | null)[] = [];
  server.use(
    http.post("/api/auth/resume/", ({ request }) => {
      calls.push(request.headers.get("X-CSRFToken"));
      // Nothing returned: the default handler answers.
    }),
  );
  return calls;
}

describe("keep me signed in: a new tab", () => {
  beforeEach(() => {
    resetSessionResume();
  });

  it("of a remembered browser gets its own token and opens the page asked for", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");
    const calls = recordResumes();

    const { location } = newTab("/account");

    expect(await screen.findByRole("heading", { name: "Account" })).toBeInTheDocument();
    expect(location().pathname).toBe("/account");
    expect(screen.getByRole("banner")).toHaveTextContent("ada@example.com");
    // The tab's token is an ordinary one, kept where tokens are kept: sessionStorage, never localStorage.
    const token = tokenStore.get();
    expect(token).toMatch(/^token-/);
    expect(window.sessionStorage.getItem(STORAGE_KEY)).toBe(token);
    expect(window.localStorage).toHaveLength(0);
    // One request, carrying the CSRF cookie's value in the header.
    expect(calls).toEqual(["csrf-token-from-the-server"]);
  });

  it("of a browser that is not remembered goes to the login page without asking the server", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const calls = recordResumes();

    const { location } = newTab("/account");

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().pathname).toBe("/login");
    expect(calls).toEqual([]);
    expect(tokenStore.get()).toBeNull();
  });

  it("whose remember cookie was revoked or expired asks to log in, and the cookies are gone", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");
    db.revokeRememberTokens();

    const { location } = newTab("/account");

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().pathname).toBe("/login");
    expect(tokenStore.get()).toBeNull();
    expect(db.browserCookies()).not.toContain(REMEMBERED_COOKIE);
    expect(db.browserCookies()).not.toContain(REMEMBER_COOKIE);
    // One message for an ended session is for tabs that had one; a new tab simply shows the login page.
    expect(screen.queryByText("Session ended")).not.toBeInTheDocument();
  });

  it("fetches the CSRF token first when its cookie is missing", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");
    document.cookie = `${CSRF_COOKIE}=; path=/; max-age=0`;
    const calls = recordResumes();

    newTab("/account");

    expect(await screen.findByRole("heading", { name: "Account" })).toBeInTheDocument();
    expect(calls).toEqual(["csrf-token-from-the-server"]);
  });

  it("opened at the login page goes straight on to ?next=", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");

    const { location } = newTab("/login?next=%2Faccount");

    expect(await screen.findByRole("heading", { name: "Account" })).toBeInTheDocument();
    expect(location().pathname).toBe("/account");
  });

  it("after logging out there, the next tab asks to log in", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");
    const first = newTab("/account");
    await first.user.click(await screen.findByRole("button", { name: "Log out" }));
    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(db.browserCookies()).not.toContain(REMEMBERED_COOKIE);

    const calls = recordResumes();
    newTab("/account");

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(calls).toEqual([]);
  });

  it("does not sign back in after a log-out the server never heard of", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    db.rememberBrowser("ada@example.com");
    const { user } = newTab("/account");
    await screen.findByRole("heading", { name: "Account" });
    // The log-out request fails (offline): the tab logs out anyway, and the cookie is still there.
    server.use(http.post("/api/auth/logout/", () => Response.error()));
    const calls = recordResumes();

    await user.click(screen.getByRole("button", { name: "Log out" }));

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(db.browserCookies()).toContain(REMEMBERED_COOKIE);
    expect(calls).toEqual([]);
  });
});
