/** The LLM providers Parley supports (static per deployment). */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { serverKeys } from "../query-keys";
import type { ResponseJson } from "../types";

export type Provider = ResponseJson<"/api/providers/", "get", 200>[number];

export function getProviders(signal?: AbortSignal) {
  return unwrap(api.GET("/api/providers/", { signal }));
}

export function providersQueryOptions() {
  return queryOptions({
    queryKey: serverKeys.providers,
    queryFn: ({ signal }) => getProviders(signal),
    staleTime: Infinity,
  });
}

export function useProviders() {
  return useQuery(providersQueryOptions());
}
