/** An in-memory backend for the MSW handlers: users, their tokens, and what health reports. */
import type { User } from "../api/auth";
import type { Health } from "../api/health";

interface StoredUser extends User {
  password: string;
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
    },
    reset(): void {
      nextId = 1;
      nextToken = 1;
      users.clear();
      tokens.clear();
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
