/**
 * Test environment: jest-dom matchers, the browser APIs Mantine needs that jsdom lacks, and an MSW
 * server that fails the test on any request no handler answers.
 */
import "@testing-library/jest-dom/vitest";
import { notifications } from "@mantine/notifications";
import { cleanup, configure } from "@testing-library/react";
import { afterAll, afterEach, beforeAll } from "vitest";
import { closeLiveChannels } from "../api/runs/live";
import { tokenStore } from "../lib/token-store";
import { db } from "./mock-db";
import { server } from "./server";
import { workspaceDb } from "./workspace-db";

// Many screens are lazy routes: the first test of a file waits for the route's module to be transformed, which
// can take more than the default second on a loaded machine (it did in CI). A find* that really fails still fails.
configure({ asyncUtilTimeout: 5000 });

// Mantine reads the colour-scheme media query and observes element sizes; jsdom has neither.
const noop = () => undefined;
Object.defineProperty(window, "matchMedia", {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: noop,
    removeListener: noop,
    addEventListener: noop,
    removeEventListener: noop,
    dispatchEvent: () => false,
  }),
});

class ResizeObserverStub {
  observe = noop;
  unobserve = noop;
  disconnect = noop;
}
window.ResizeObserver = ResizeObserverStub;
window.HTMLElement.prototype.scrollIntoView = () => undefined;
// Autosizing text areas listen for web fonts; CodeMirror measures text ranges. jsdom has neither.
if (!("fonts" in document)) {
  Object.defineProperty(document, "fonts", {
    value: { addEventListener: noop, removeEventListener: noop, ready: Promise.resolve() },
  });
}
const emptyRects = () =>
  ({ length: 0, item: () => null, [Symbol.iterator]: [][Symbol.iterator] }) as unknown as DOMRectList;
Range.prototype.getClientRects = emptyRects;
Range.prototype.getBoundingClientRect = () => new DOMRect();

const unhandledRequests: string[] = [];

beforeAll(() => {
  server.listen({
    onUnhandledRequest: (request, print) => {
      unhandledRequests.push(`${request.method} ${request.url}`);
      print.error();
    },
  });
});

afterEach(() => {
  cleanup();
  // Live-update connections outlive their hooks for a moment; none may reach into the next test.
  closeLiveChannels();
  server.resetHandlers();
  db.reset();
  workspaceDb.reset();
  tokenStore.clear("logout");
  notifications.clean();
  window.sessionStorage.clear();
  window.localStorage.clear();
  const unhandled = unhandledRequests.splice(0);
  if (unhandled.length > 0) throw new Error(`Requests without an MSW handler: ${unhandled.join(", ")}`);
});

afterAll(() => {
  server.close();
});
