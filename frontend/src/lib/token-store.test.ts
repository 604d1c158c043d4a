import { describe, expect, it, vi } from "vitest";
import { createTokenStore } from "./token-store";

describe("token store", () => {
  it("survives a reload of the tab through sessionStorage", () => {
    createTokenStore(window.sessionStorage).set("abc");

    // A new page load builds a new store from the same tab's storage.
    expect(createTokenStore(window.sessionStorage).get()).toBe("abc");
    expect(window.localStorage).toHaveLength(0);
  });

  it("notifies once per transition and remembers why the token went away", () => {
    const store = createTokenStore(window.sessionStorage);
    const listener = vi.fn();
    store.subscribe(listener);

    store.set("abc");
    store.clear("unauthorized");
    store.clear("unauthorized");

    expect(listener).toHaveBeenCalledTimes(2);
    expect(store.lastClearReason()).toBe("unauthorized");
    expect(window.sessionStorage.getItem("parley.token")).toBeNull();
  });

  it("still works in memory when storage is unavailable", () => {
    const store = createTokenStore(null);
    store.set("abc");
    expect(store.get()).toBe("abc");
  });
});
