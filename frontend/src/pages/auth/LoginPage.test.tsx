import { screen, waitFor } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { tokenStore } from "../../lib/token-store";
import { db } from "../../testing/mock-db";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";

describe("login page", () => {
  it("shows the server's message when the password is wrong", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const { user, location } = renderApp("/login");

    await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "wrong password");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("The e-mail or password is incorrect.");
    expect(tokenStore.get()).toBeNull();
    expect(location().pathname).toBe("/login");
  });

  it("shows the throttling message from a 429 answer", async () => {
    server.use(
      http.post("/api/auth/login/", () =>
        HttpResponse.json(
          { detail: "Too many attempts. Try again in 42 seconds.", code: "throttled" },
          { status: 429 },
        ),
      ),
    );
    const { user } = renderApp("/login");

    await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "anything");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 42 seconds.");
  });

  it("checks the fields before asking the server", async () => {
    // No login handler may be reached: an unmocked call would fail the test, so remove the real one.
    server.use(http.post("/api/auth/login/", () => HttpResponse.error()));
    const { user } = renderApp("/login");

    await user.type(await screen.findByLabelText("E-mail"), "not-an-address");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(screen.getByLabelText("E-mail")).toHaveAccessibleDescription("Enter a valid e-mail address.");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription("Enter your password.");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("logs in and continues to the page named by ?next=", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const { user, location } = renderApp("/login?next=%2Faccount");

    await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(await screen.findByRole("heading", { name: "Account" })).toBeInTheDocument();
    expect(location().pathname).toBe("/account");
    expect(screen.getByRole("banner")).toHaveTextContent("ada@example.com");
  });

  it("ignores a ?next= that leaves the site", async () => {
    db.addUser("ada@example.com", "correct horse battery");
    const { user, location } = renderApp("/login?next=%2F%2Fevil.example%2F");

    await user.type(await screen.findByLabelText("E-mail"), "ada@example.com");
    await user.type(screen.getByLabelText("Password"), "correct horse battery");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    expect(location().pathname).toBe("/");
  });

  it("offers a way to the public dashboards without an account", async () => {
    const { user, location } = renderApp("/login");
    const link = await screen.findByRole("link", { name: "browse the public dashboards" });
    expect(link).toHaveAttribute("href", "/public");
    server.use(
      http.get("/api/projects/", () => HttpResponse.json({ count: 0, next: null, previous: null, results: [] })),
    );
    await user.click(link);
    await waitFor(() => {
      expect(location().pathname).toBe("/public");
    });
  });
});
