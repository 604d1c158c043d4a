import { screen } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { db } from "../../testing/mock-db";
import { renderApp } from "../../testing/render-app";
import { server } from "../../testing/server";

async function fillSignup(
  user: ReturnType<typeof renderApp>["user"],
  email: string,
  password: string,
  confirm = password,
) {
  await user.type(await screen.findByLabelText("E-mail"), email);
  await user.type(screen.getByLabelText("Password"), password);
  await user.type(screen.getByLabelText("Confirm password"), confirm);
  await user.click(screen.getByRole("button", { name: "Create account" }));
}

describe("sign-up page", () => {
  it("shows the server's field errors under the fields", async () => {
    server.use(
      http.post("/api/auth/signup/", () =>
        HttpResponse.json(
          {
            detail: "Please correct the highlighted fields.",
            code: "invalid",
            fields: {
              email: ["A user with this e-mail address already exists."],
              password: ["This password is too common."],
            },
          },
          { status: 400 },
        ),
      ),
    );
    const { user } = renderApp("/signup");

    await fillSignup(user, "taken@example.com", "password123");

    expect(await screen.findByText("A user with this e-mail address already exists.")).toBeInTheDocument();
    expect(screen.getByLabelText("E-mail")).toHaveAccessibleDescription(
      "A user with this e-mail address already exists.",
    );
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription(
      expect.stringContaining("This password is too common.") as string,
    );
    // Everything the server said is under a field, so no extra alert repeats it.
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("shows a duplicate e-mail reported by the backend", async () => {
    db.addUser("taken@example.com", "whatever-it-is");
    const { user, location } = renderApp("/signup");

    await fillSignup(user, "taken@example.com", "a long enough password");

    expect(await screen.findByText("A user with this e-mail address already exists.")).toBeInTheDocument();
    expect(location().pathname).toBe("/signup");
  });

  it("checks the confirmation before asking the server", async () => {
    const { user } = renderApp("/signup");

    await fillSignup(user, "new@example.com", "a long enough password", "another password");

    expect(screen.getByLabelText("Confirm password")).toHaveAccessibleDescription("The passwords do not match.");
  });

  it("creates the account and opens the app shell", async () => {
    const { user, location } = renderApp("/signup");

    await fillSignup(user, "new@example.com", "a long enough password");

    expect(await screen.findByRole("heading", { name: "Welcome to Parley" })).toBeInTheDocument();
    expect(screen.getByRole("banner")).toHaveTextContent("new@example.com");
    expect(screen.getByRole("link", { name: "Account" })).toBeInTheDocument();
    expect(location().pathname).toBe("/");
  });
});
