/**
 * An in-memory backend for the MSW handlers: users, their tokens, the browsers kept signed in, and what health
 * reports.
 *
 * The browser's cookie jar is jsdom's `document.cookie`, which MSW forwards with same-origin requests. The real
 * server sets `parley_remember` HttpOnly; jsdom's scripts cannot, and the SPA never reads it, so a plain cookie
 * stands in for it. The mock writes the cookies itself rather than answering with Set-Cookie, which MSW would
 * also persist in localStorage.
 */
import type { User } from "../api/account/auth";
import type { Health } from "../api/account/health";

interface StoredUser extends User {
  password: string;
}

export const REMEMBER_COOKIE = "parley_remember";
export const REMEMBERED_COOKIE = "parley_remembered";
export const CSRF_COOKIE = "csrftoken";
export const CSRF_TOKEN = "csrf-token-from-the-server";

function setCookie(name: string, value: string) {
  document.cookie = `${name}=${value}; path=/; samesite=strict`;
}

function deleteCookie(name: string) {
  document.cookie = `${name}=; path=/; max-age=0`;
}

function cookie(name: string): string | undefined {
  const prefix = `${name}=`;
  return document.cookie
    .split("; ")
    .find((part) => part.startsWith(prefix))
    ?.slice(prefix.length);
}

const HEALTHY: Health = {
  status: "ok",
  database: { ok: true, detail: "PostgreSQL 16 answered in 2 ms" },
  broker: { ok: true, detail: "RabbitMQ reachable" },
  workers: { ok: true, count: 1, detail: "" },
};

function createDb() {
  let nextId = 1;
  let nextToken = 1;
  const users = new Map<string, StoredUser>();
  const tokens = new Map<string, string>();
  let nextRemember = 1;
  const rememberTokens = new Map<string, string>();

  return {
    health: structuredClone(HEALTHY),

    addUser(email: string, password: string): User {
      const user: StoredUser = { id: nextId++, email, password, date_joined: "2026-03-14T09:26:53Z" };
      users.set(email, user);
      return { id: user.id, email: user.email, date_joined: user.date_joined };
    },
    findUser(email: string): StoredUser | undefined {
      return users.get(email);
    },
    issueToken(email: string): string {
      const token = `token-${String(nextToken++)}`;
      tokens.set(token, email);
      return token;
    },
    userForToken(token: string): StoredUser | undefined {
      const email = tokens.get(token);
      return email === undefined ? undefined : users.get(email);
    },
    revokeToken(token: string): void {
      tokens.delete(token);
    },
    revokeAllTokens(email: string): void {
      for (const [token, owner] of tokens) if (owner === email) tokens.delete(token);
      for (const [secret, owner] of rememberTokens) if (owner === email) rememberTokens.delete(secret);
    },
    /** What a login with "Keep me signed in" leaves in the browser: the remember cookie, its hint, the CSRF cookie. */
    rememberBrowser(email: string): void {
      const secret = `remember-${String(nextRemember++)}`;
      rememberTokens.set(secret, email);
      setCookie(REMEMBER_COOKIE, secret);
      setCookie(REMEMBERED_COOKIE, "1");
      setCookie(CSRF_COOKIE, CSRF_TOKEN);
    },
    /** Logout, or a refused remember cookie: the token behind the browser's cookie is revoked, the cookies deleted. */
    forgetBrowser(): void {
      const secret = cookie(REMEMBER_COOKIE);
      if (secret !== undefined) rememberTokens.delete(secret);
      deleteCookie(REMEMBER_COOKIE);
      deleteCookie(REMEMBERED_COOKIE);
    },
    userForRememberToken(secret: string): StoredUser | undefined {
      const email = rememberTokens.get(secret);
      return email === undefined ? undefined : users.get(email);
    },
    /** Revoked on the server (expired, or ended elsewhere) while the browser still holds the cookies. */
    revokeRememberTokens(): void {
      rememberTokens.clear();
    },
    browserCookies(): string[] {
      return document.cookie
        .split("; ")
        .filter(Boolean)
        .map((part) => part.split("=")[0] ?? "");
    },
    reset(): void {
      nextId = 1;
      nextToken = 1;
      users.clear();
      tokens.clear();
      nextRemember = 1;
      rememberTokens.clear();
      for (const name of [REMEMBER_COOKIE, REMEMBERED_COOKIE, CSRF_COOKIE]) deleteCookie(name);
      this.health = structuredClone(HEALTHY);
    },
  };
}

export const db = createDb();

/** A user with a live token, as a test that starts "logged in" needs. */
export function seedLoggedInUser(email = "ada@example.com", password = "correct horse battery") {
  const user = db.addUser(email, password);
  return { user, password, token: db.issueToken(email) };
}
