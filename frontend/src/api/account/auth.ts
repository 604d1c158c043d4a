/**
 * Authentication endpoints: fetchers, query options and hooks.
 *
 * Starting a session (login, sign-up, password change, resume) primes the `me` cache and stores the token;
 * ending one only clears the token — the route guard and `AuthSessionEffects` react to that.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { readCookie } from "../../lib/cookies";
import { tokenStore, useToken } from "../../lib/token-store";
import { api, unwrap, unwrapEmpty } from "../client";
import { authKeys } from "../query-keys";
import type { RequestJson } from "../types";

export type LoginInput = RequestJson<"/api/auth/login/", "post">;
export type SignupInput = RequestJson<"/api/auth/signup/", "post">;
export type PasswordChangeInput = RequestJson<"/api/auth/password/", "post">;

export function login(body: LoginInput) {
  return unwrap(api.POST("/api/auth/login/", { body }));
}

export function signup(body: SignupInput) {
  return unwrap(api.POST("/api/auth/signup/", { body }));
}

export function changePassword(body: PasswordChangeInput) {
  return unwrap(api.POST("/api/auth/password/", { body }));
}

/**
 * "Keep me signed in": this tab gets a token of its own for the browser's remember cookie. That cookie is
 * HttpOnly — the browser sends it, no script reads it — so the request proves its origin with Django's CSRF
 * token (the `csrftoken` cookie echoed in a header), fetched first if the cookie is missing.
 */
export async function resumeSession() {
  const csrfToken = readCookie("csrftoken") ?? (await unwrap(api.GET("/api/auth/csrf/"))).csrf_token;
  return unwrap(api.POST("/api/auth/resume/", { headers: { "X-CSRFToken": csrfToken }, credentials: "same-origin" }));
}

export function logout() {
  return unwrapEmpty(api.POST("/api/auth/logout/"));
}

export function logoutAll() {
  return unwrapEmpty(api.POST("/api/auth/logout-all/"));
}

export function getMe(signal?: AbortSignal) {
  return unwrap(api.GET("/api/auth/me/", { signal }));
}

/** What login, sign-up and password change return: `{token, expiry, user}`. */
export type AuthSession = Awaited<ReturnType<typeof login>>;
export type User = Awaited<ReturnType<typeof getMe>>;

export function meQueryOptions() {
  return queryOptions({
    queryKey: authKeys.me,
    queryFn: ({ signal }) => getMe(signal),
    staleTime: 5 * 60_000,
  });
}

/** The logged-in user; idle while there is no token. */
export function useMe() {
  const token = useToken();
  return useQuery({ ...meQueryOptions(), enabled: token !== null });
}

function useStartSession() {
  const queryClient = useQueryClient();
  return (session: AuthSession) => {
    // Cache first, token second: the guard sees a known user the moment the token appears (no spinner).
    queryClient.setQueryData(authKeys.me, session.user);
    tokenStore.set(session.token);
  };
}

export function useLogin() {
  const startSession = useStartSession();
  return useMutation({ mutationFn: login, onSuccess: startSession });
}

export function useSignup() {
  const startSession = useStartSession();
  return useMutation({ mutationFn: signup, onSuccess: startSession });
}

/** The server revokes every other token and issues a fresh one, which replaces ours. */
export function useChangePassword() {
  const startSession = useStartSession();
  return useMutation({ mutationFn: changePassword, onSuccess: startSession });
}

/** Logs out locally even when the server cannot be reached: the user asked to leave. */
export function useLogout() {
  return useMutation({
    mutationFn: logout,
    onSettled: () => {
      tokenStore.clear("logout");
    },
  });
}

/** Revokes every token of the user; only a successful answer ends the local session. */
export function useLogoutAll() {
  return useMutation({
    mutationFn: logoutAll,
    onSuccess: () => {
      tokenStore.clear("logout");
    },
  });
}
