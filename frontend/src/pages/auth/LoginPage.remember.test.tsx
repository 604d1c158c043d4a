import { screen } from "@testing-library/react";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import type { LoginInput } from "../../api/account/auth";
import { tokenStore } from "../../lib/token-store";
import { db, REMEMBERED_COOKIE } from "../../testing/mock-db";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";

/** The login bodies the page sends (the default handler still answers). */
function recordLogins() {
  const bodies: LoginInput[] = [];
  server.use(
    http.post("/api/auth/login/", async ({ request }) => {
      bodies.push((await request.clone().json()) as LoginInput);
    }),
  );
  return bodies;
}

async function logIn(user: ReturnType<typeof renderApp>["user"], { keepSignedIn }: { keepSignedIn: boolean }) {
  await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
  await user.type(screen.getByLabelText("Password"), "correct horse battery");
  if (keepSignedIn) await user.click(screen.getByRole("checkbox", { name: "Keep me signed in" }));
  await user.click(screen.getByRole("button", { name: "Log in" }));
}

describe("login page: keep me signed in", () => {
  it("offers the checkbox, off by default, and says what it does", async () => {
    renderApp("/login");

    const checkbox = await screen.findByRole("checkbox", { name: "Keep me signed in" });
    expect(checkbox).not.toBeChecked();
    expect(checkbox).toHaveAccessibleDescription(/New tabs and restarts of this browser stay signed in/);
  });

  it("unticked, logs in for this tab only", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const bodies = recordLogins();
    const { user } = renderApp("/login");

    await logIn(user, { keepSignedIn: false });

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    expect(bodies).toEqual([{ email: "ada@example.com", password: "correct horse battery", remember: false }]);
    expect(db.browserCookies()).not.toContain(REMEMBERED_COOKIE);
  });

  it("ticked, asks the server to remember the browser; the tab's token stays in sessionStorage", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const bodies = recordLogins();
    const { user } = renderApp("/login");

    await logIn(user, { keepSignedIn: true });

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    expect(bodies).toEqual([{ email: "ada@example.com", password: "correct horse battery", remember: true }]);
    expect(db.browserCookies()).toContain(REMEMBERED_COOKIE);
    expect(window.sessionStorage.getItem("parley.token")).toBe(tokenStore.get());
    expect(window.localStorage).toHaveLength(0);
  });

  it("sign-up sends no remember field", async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post("/api/auth/signup/", async ({ request }) => {
        bodies.push(await request.clone().json());
      }),
    );
    const { user } = renderApp("/signup");

    await user.type(await screen.findByLabelText("E-mail"), "new@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.type(screen.getByLabelText("Confirm password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Create account" }));

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    expect(bodies).toEqual([{ email: "new@example.com", password: "correct horse battery" }]);
  });
});
