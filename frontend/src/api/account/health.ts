/** The anonymous system health check (database, broker, workers). */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, settle } from "../client";
import { toApiError } from "../errors";
import { serverKeys } from "../query-keys";
import type { ResponseJson } from "../types";

export type Health = ResponseJson<"/api/health/", "get", 200>;

function isCheck(value: unknown): boolean {
  return typeof value === "object" && value !== null && "ok" in value && typeof value.ok === "boolean";
}

/** A degraded backend may answer 503 with the same body; that is a result to show, not an error. */
function isHealth(value: unknown): value is Health {
  return (
    typeof value === "object" &&
    value !== null &&
    "status" in value &&
    "database" in value &&
    "broker" in value &&
    "workers" in value &&
    isCheck(value.database) &&
    isCheck(value.broker) &&
    isCheck(value.workers)
  );
}

export async function getHealth(signal?: AbortSignal): Promise<Health> {
  const { data, error, response } = await settle(api.GET("/api/health/", { signal }));
  if (data !== undefined) return data;
  if (isHealth(error)) return error;
  throw toApiError(response, error);
}

/** How often the status card re-checks while it is on screen. */
export const HEALTH_REFRESH_MS = 30_000;

export function healthQueryOptions() {
  return queryOptions({
    queryKey: serverKeys.health,
    queryFn: ({ signal }) => getHealth(signal),
    refetchInterval: HEALTH_REFRESH_MS,
  });
}

export function useHealth() {
  return useQuery(healthQueryOptions());
}
