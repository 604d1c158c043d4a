/** Every in-app URL is built here, so a renamed route is a one-line change. */

export const paths = {
  home: "/",
  account: "/account",
  signup: (next?: string | null) => withNext("/signup", next),
  login: (next?: string | null) => withNext("/login", next),
} as const;

function withNext(path: string, next?: string | null): string {
  const safe = safeNext(next);
  return safe === null || safe === paths.home ? path : `${path}?${new URLSearchParams({ next: safe }).toString()}`;
}

/**
 * Accepts only a same-origin, absolute in-app path for `?next=`.
 * Anything else (`https://evil.example`, `//evil.example`, `/\evil.example`, `javascript:`) becomes null,
 * so the login page cannot be used as an open redirect.
 */
export function safeNext(next: string | null | undefined): string | null {
  if (!next?.startsWith("/")) return null;
  if (next.startsWith("//") || next.startsWith("/\\")) return null;
  if (next.startsWith("/login") || next.startsWith("/signup")) return null;
  return next;
}
