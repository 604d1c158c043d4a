/**
 * The one home of the API token.
 *
 * The token lives in memory and is mirrored to sessionStorage so that a reload keeps the user logged in
 * within the tab, while closing the tab ends the session. It is never written to localStorage: that would
 * outlive the tab and be readable by every tab of the origin.
 */
import { useSyncExternalStore } from "react";

const STORAGE_KEY = "parley.token";

/** Why the token went away: an explicit log-out, or the server refusing it (HTTP 401). */
export type ClearReason = "logout" | "unauthorized";

type Listener = () => void;

// Property signatures (not methods) so the functions can be passed around unbound, e.g. to useSyncExternalStore.
export interface TokenStore {
  get: () => string | null;
  set: (token: string) => void;
  /** Forgets the token; a no-op when there is none, so racing 401s produce one transition. */
  clear: (reason: ClearReason) => void;
  /** The reason of the most recent `clear`, or null if the token was never cleared in this page's life. */
  lastClearReason: () => ClearReason | null;
  subscribe: (listener: Listener) => () => void;
}

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage can be disabled by the browser's privacy settings; the token then lives in memory only.
    return null;
  }
}

export function createTokenStore(storage: Storage | null = sessionStorageOrNull()): TokenStore {
  let token = storage?.getItem(STORAGE_KEY) ?? null;
  let clearReason: ClearReason | null = null;
  const listeners = new Set<Listener>();

  const write = (next: string | null) => {
    token = next;
    try {
      if (next === null) storage?.removeItem(STORAGE_KEY);
      else storage?.setItem(STORAGE_KEY, next);
    } catch {
      // Quota or privacy errors: the in-memory copy still works for this page.
    }
    for (const listener of listeners) listener();
  };

  return {
    get: () => token,
    set(next) {
      clearReason = null;
      write(next);
    },
    clear(reason) {
      if (token === null) return;
      clearReason = reason;
      write(null);
    },
    lastClearReason: () => clearReason,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The application's token store. Tests reset it through `clear`. */
export const tokenStore = createTokenStore();

/** The current token; re-renders when it is set or cleared. */
export function useToken(): string | null {
  return useSyncExternalStore(tokenStore.subscribe, tokenStore.get);
}
