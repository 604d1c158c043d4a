import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { tokenStore } from "../../lib/token-store";
import { db } from "../../testing/mock-db";
import { renderApp } from "../../testing/render-app";

describe("account page", () => {
  it("shows the e-mail and the join date", async () => {
    renderApp("/account", { loggedIn: true });

    const email = await screen.findByRole("rowheader", { name: "E-mail" });
    expect(email.closest("tr")).toHaveTextContent("ada@example.com");
    const joined = screen.getByRole("rowheader", { name: "Joined" }).closest("tr");
    expect(joined?.querySelector("time")).toHaveAttribute("dateTime", "2026-03-14T09:26:53Z");
  });

  it("changes the password and keeps the session with the fresh token", async () => {
    const { user, account } = renderApp("/account", { loggedIn: true });

    await user.type(await screen.findByLabelText("Current password"), account?.password ?? "");
    await user.type(screen.getByLabelText("New password"), "an even better passphrase");
    await user.click(screen.getByRole("button", { name: "Change password" }));

    expect(await screen.findByText("Password changed")).toBeInTheDocument();
    const token = tokenStore.get();
    expect(token).not.toBeNull();
    expect(token).not.toBe(account?.token);
    expect(window.sessionStorage.getItem("parley.token")).toBe(token);
    expect(db.userForToken(token ?? "")?.password).toBe("an even better passphrase");
    expect(screen.getByLabelText("Current password")).toHaveValue("");
  });

  it("shows a wrong current password under the field", async () => {
    const { user } = renderApp("/account", { loggedIn: true });

    await user.type(await screen.findByLabelText("Current password"), "not my password");
    await user.type(screen.getByLabelText("New password"), "an even better passphrase");
    await user.click(screen.getByRole("button", { name: "Change password" }));

    expect(await screen.findByText("The current password is incorrect.")).toBeInTheDocument();
    expect(screen.getByLabelText("Current password")).toHaveAccessibleDescription("The current password is incorrect.");
  });

  it("logs out of all devices only after confirmation", async () => {
    const { user, location, account } = renderApp("/account", { loggedIn: true });
    const otherDevice = db.issueToken(account?.user.email ?? "");

    await user.click(await screen.findByRole("button", { name: "Log out of all devices" }));
    const dialog = await screen.findByRole("dialog", { name: "Log out of all devices?" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(tokenStore.get()).toBe(account?.token);

    await user.click(screen.getByRole("button", { name: "Log out of all devices" }));
    await user.click(
      within(await screen.findByRole("dialog", { name: "Log out of all devices?" })).getByRole("button", {
        name: "Log out everywhere",
      }),
    );

    expect(await screen.findByRole("heading", { name: "Log in" })).toBeInTheDocument();
    expect(location().search).toBe("");
    expect(tokenStore.get()).toBeNull();
    expect(db.userForToken(otherDevice)).toBeUndefined();
  });
});
