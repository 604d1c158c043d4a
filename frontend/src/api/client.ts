/**
 * The one HTTP client of the SPA, typed by the generated `schema.d.ts`.
 *
 * It stays free of UI side effects (no toasts, no navigation). Its only policy is authentication:
 * it attaches the token, and a 401 answer to a request that carried the current token clears it.
 * The route guard then sends the user to the login page, and `AuthSessionEffects` tidies up once.
 */
import createClient, { type Middleware } from "openapi-fetch";
import { tokenStore as defaultTokenStore, type TokenStore } from "../lib/token-store";
import { networkError, toApiError } from "./errors";
import type { paths } from "./schema";

export function authMiddleware(store: TokenStore): Middleware {
  return {
    onRequest({ request }) {
      const token = store.get();
      if (token !== null) request.headers.set("Authorization", `Token ${token}`);
      return request;
    },
    onResponse({ request, response }) {
      // Only the token that was refused is cleared: several polls failing at once, or a late answer to a
      // request sent before a fresh login, cannot log out a newer session or fire the transition twice.
      const current = store.get();
      if (response.status === 401 && current !== null && request.headers.get("Authorization") === `Token ${current}`) {
        store.clear("unauthorized");
      }
      return response;
    },
  };
}

export function createApiClient(store: TokenStore) {
  const client = createClient<paths>({
    // Absolute so that `Request` accepts it outside a browser too (tests); in the browser it is same-origin.
    baseUrl: globalThis.location.origin,
    // Late-bound so that test interceptors that patch `globalThis.fetch` after import still see the calls.
    fetch: (request) => globalThis.fetch(request),
  });
  client.use(authMiddleware(store));
  return client;
}

export const api = createApiClient(defaultTokenStore);

interface CallResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** Awaits a call, turning a failed `fetch` (no answer at all) into `ApiError`. */
export async function settle<D>(call: Promise<CallResult<D>>): Promise<CallResult<D>> {
  try {
    return await call;
  } catch (error) {
    // Cancellation (React Query aborting a stale request) is not a failure to report.
    if (error instanceof Error && error.name === "AbortError") throw error;
    throw networkError();
  }
}

/** Resolves to the JSON body of a successful call; rejects with `ApiError` otherwise. */
export async function unwrap<D>(call: Promise<CallResult<D>>): Promise<D> {
  const { data, error, response } = await settle(call);
  if (!response.ok) throw toApiError(response, error);
  if (data === undefined) throw toApiError(response, undefined);
  return data;
}

/** Like `unwrap`, for endpoints that answer 204 No Content. */
export async function unwrapEmpty(call: Promise<CallResult<unknown>>): Promise<void> {
  const { error, response } = await settle(call);
  if (!response.ok) throw toApiError(response, error);
}
