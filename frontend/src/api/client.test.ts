import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import { createTokenStore } from "../lib/token-store";
import { server } from "../testing/server";
import { createApiClient, unwrap } from "./client";
import { ApiError } from "./errors";

describe("API client", () => {
  it("sends the token as `Authorization: Token <token>`", async () => {
    let seen: string | null = null;
    server.use(
      http.get("/api/auth/me/", ({ request }) => {
        seen = request.headers.get("Authorization");
        return HttpResponse.json({ id: 1, email: "ada@example.com", date_joined: "2026-01-01T00:00:00Z" });
      }),
    );
    const store = createTokenStore(null);
    store.set("abc");

    await unwrap(createApiClient(store).GET("/api/auth/me/"));

    expect(seen).toBe("Token abc");
  });

  it("clears the token on 401, but not a newer token than the one refused", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get("/api/auth/me/", async () => {
        await gate;
        return HttpResponse.json({ detail: "Invalid token.", code: "authentication_failed" }, { status: 401 });
      }),
    );
    const store = createTokenStore(null);
    const api = createApiClient(store);

    store.set("old");
    const stale = unwrap(api.GET("/api/auth/me/"));
    store.set("new"); // the user logged in again while the old request was in flight
    release();
    await expect(stale).rejects.toBeInstanceOf(ApiError);
    expect(store.get()).toBe("new");

    const current = unwrap(api.GET("/api/auth/me/"));
    await expect(current).rejects.toMatchObject({ status: 401, detail: "Invalid token." });
    expect(store.get()).toBeNull();
    expect(store.lastClearReason()).toBe("unauthorized");
  });

  it("reports an unreachable server as a readable ApiError", async () => {
    server.use(http.get("/api/health/", () => HttpResponse.error()));
    const api = createApiClient(createTokenStore(null));

    await expect(unwrap(api.GET("/api/health/"))).rejects.toMatchObject({ status: 0, code: "network_error" });
  });
});
