/**
 * Public projects: readable by anyone, signed in or not. The server answers only what a visitor may see
 * (owners' display names, never e-mails; no owner-only log events), so these calls need no token.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { publicKeys } from "../query-keys";

export function getPublicProjects(page: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/projects/", { params: { query: { page, scope: "public" } }, signal }));
}

export function usePublicProjects(page: number) {
  return useQuery({
    queryKey: publicKeys.projects(page),
    queryFn: ({ signal }) => getPublicProjects(page, signal),
    placeholderData: keepPreviousData,
  });
}
