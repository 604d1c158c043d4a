/** Renders the real route table, providers and API layer at a URL, optionally logged in. */
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { AppProvider } from "../app/provider";
import { makeQueryClient } from "../app/query-client";
import { routes } from "../app/router";
import { tokenStore } from "../lib/token-store";
import { seedLoggedInUser } from "./mock-db";

interface RenderAppOptions {
  /** Start with a live session for a seeded user (`ada@example.com`). */
  loggedIn?: boolean;
}

export function renderApp(url: string, { loggedIn = false }: RenderAppOptions = {}) {
  const account = loggedIn ? seedLoggedInUser() : null;
  if (account) tokenStore.set(account.token);

  const router = createMemoryRouter(routes, { initialEntries: [url] });
  const queryClient = makeQueryClient();
  const user = userEvent.setup();
  const view = render(
    <AppProvider queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  const location = () => router.state.location;
  return { ...view, router, queryClient, user, account, location };
}
