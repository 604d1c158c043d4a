/**
 * "Keep me signed in", the tab's side: a tab that opens without a token asks the server for one — once.
 *
 * The server remembers a browser through an HttpOnly cookie that no script can read. Beside it, it sets
 * `parley_remembered=1` (no secret in it), so only a remembered browser asks: anonymous visitors of the public
 * pages never call the endpoint. What comes back is an ordinary per-tab token, kept like any other (memory and
 * sessionStorage, lib/token-store.ts). The route guards wait while the request is out, so a remembered user
 * never sees the login page flash by.
 *
 * One attempt per page load, and none after the user logged out here: a failure (the server then deletes
 * the cookies) or a refused token leads to the login page as before, never to a loop of retries.
 */
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore } from "react";
import { resumeSession } from "../api/account/auth";
import { authKeys } from "../api/query-keys";
import { readCookie } from "../lib/cookies";
import { tokenStore, useToken } from "../lib/token-store";

const REMEMBERED_COOKIE = "parley_remembered";

type Status = "idle" | "resuming" | "done";

let status: Status = "idle";
const listeners = new Set<() => void>();

function setStatus(next: Status) {
  status = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Logging out ends what the browser remembered; if the server could not be told, this page still must not
// sign the user straight back in.
tokenStore.subscribe(() => {
  if (tokenStore.get() === null && tokenStore.lastClearReason() === "logout" && status === "idle") setStatus("done");
});

function rememberedBrowser(): boolean {
  return readCookie(REMEMBERED_COOKIE) !== null;
}

function startResume(queryClient: QueryClient) {
  if (status !== "idle" || tokenStore.get() !== null) return;
  setStatus("resuming");
  resumeSession()
    .then((session) => {
      // Cache first, token second, as after a login: the guard sees a known user the moment the token appears.
      queryClient.setQueryData(authKeys.me, session.user);
      tokenStore.set(session.token);
    })
    .catch(() => {
      // 401: not remembered (any more); anything else: the user logs in as without the cookie.
    })
    .finally(() => {
      setStatus("done");
    });
}

/**
 * Whether the guards must wait before deciding: the tab has no token, the browser is remembered, and this
 * page has not tried yet (or is trying now). Starts the attempt.
 */
export function useResumingSession(): boolean {
  const token = useToken();
  const current = useSyncExternalStore(subscribe, () => status);
  const queryClient = useQueryClient();
  const waiting = token === null && (current === "resuming" || (current === "idle" && rememberedBrowser()));

  useEffect(() => {
    if (waiting) startResume(queryClient);
  }, [waiting, queryClient]);

  return waiting;
}

/** Forget that this page tried: each test starts as a fresh page load. */
export function resetSessionResume() {
  setStatus("idle");
}
