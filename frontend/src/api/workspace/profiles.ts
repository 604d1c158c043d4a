/**
 * A project's SENSEI profiles: YAML documents, validated on every save (an invalid one is kept but cannot be
 * run), uploaded in bulk, planned before a run. TRACER's profiles are immutable: saving one stores a manual
 * copy that points back to it (`derived_from`).
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, settle, unwrap, unwrapEmpty } from "../client";
import { toApiError } from "../errors";
import { collectPages } from "../pagination";
import { profileKeys } from "../query-keys";
import type { ResponseJson } from "../types";

export type Profile = ResponseJson<"/api/projects/{project_id}/profiles/{id}/", "get", 200>;
export type PlanResult = ResponseJson<"/api/projects/{project_id}/profiles/{id}/plan/", "post", 200>;

const projectPath = (projectId: number) => ({ project_id: String(projectId) });

export function getProfilesPage(projectId: number, page: number, signal?: AbortSignal) {
  return unwrap(
    api.GET("/api/projects/{project_id}/profiles/", {
      params: { path: projectPath(projectId), query: { page } },
      signal,
    }),
  );
}

export function getAllProfiles(projectId: number, signal?: AbortSignal) {
  return collectPages((page) => getProfilesPage(projectId, page, signal));
}

export function getProfile(projectId: number, id: number, signal?: AbortSignal) {
  return unwrap(
    api.GET("/api/projects/{project_id}/profiles/{id}/", {
      params: { path: { ...projectPath(projectId), id } },
      signal,
    }),
  );
}

export function createProfile({ projectId, text }: { projectId: number; text: string }) {
  return unwrap(
    api.POST("/api/projects/{project_id}/profiles/", { params: { path: projectPath(projectId) }, body: { text } }),
  );
}

export function updateProfile({ projectId, id, text }: { projectId: number; id: number; text: string }) {
  return unwrap(
    api.PATCH("/api/projects/{project_id}/profiles/{id}/", {
      params: { path: { ...projectPath(projectId), id } },
      body: { text },
    }),
  );
}

export function deleteProfile({ projectId, id }: { projectId: number; id: number }) {
  return unwrapEmpty(
    api.DELETE("/api/projects/{project_id}/profiles/{id}/", { params: { path: { ...projectPath(projectId), id } } }),
  );
}

export interface UploadedDocument {
  name: string;
  valid: boolean;
  problems: number;
}

/** Uploads YAML files; each is stored whether valid or not. Answers one entry per file. */
export async function uploadProfiles({ projectId, files }: { projectId: number; files: File[] }) {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  const { data, error, response } = await settle(
    api.POST("/api/projects/{project_id}/profiles/upload/", {
      params: { path: projectPath(projectId) },
      body: { files: [] },
      bodySerializer: () => form,
    }),
  );
  if (!response.ok || data === undefined) throw toApiError(response, error);
  return data.map((row): UploadedDocument => ({
    name: row.name ?? "",
    valid: row.valid,
    problems: row.problems.length,
  }));
}

export function planProfile({ projectId, id, seed }: { projectId: number; id: number; seed?: number | null }) {
  return unwrap(
    api.POST("/api/projects/{project_id}/profiles/{id}/plan/", {
      params: { path: { ...projectPath(projectId), id } },
      body: { seed: seed ?? null },
    }),
  );
}

export function profilesQueryOptions(projectId: number) {
  return queryOptions({
    queryKey: profileKeys.list(projectId),
    queryFn: ({ signal }) => getAllProfiles(projectId, signal),
  });
}

export function useProfiles(projectId: number) {
  return useQuery(profilesQueryOptions(projectId));
}

export function useProfile(projectId: number, id: number | null) {
  return useQuery({
    queryKey: profileKeys.detail(projectId, id ?? 0),
    queryFn: ({ signal }) => getProfile(projectId, id ?? 0, signal),
    enabled: id !== null,
    staleTime: Infinity,
  });
}

function useInvalidateProfiles() {
  const queryClient = useQueryClient();
  return (projectId: number) => queryClient.invalidateQueries({ queryKey: profileKeys.list(projectId) });
}

export function useSaveProfile() {
  const queryClient = useQueryClient();
  const invalidate = useInvalidateProfiles();
  return useMutation({
    mutationFn: ({ projectId, id, text }: { projectId: number; id: number | null; text: string }) =>
      id === null ? createProfile({ projectId, text }) : updateProfile({ projectId, id, text }),
    onSuccess: (profile, { projectId }) => {
      queryClient.setQueryData(profileKeys.detail(projectId, profile.id), profile);
      return invalidate(projectId);
    },
  });
}

export function useDeleteProfiles() {
  const invalidate = useInvalidateProfiles();
  return useMutation({
    mutationFn: async ({ projectId, ids }: { projectId: number; ids: number[] }) => {
      for (const id of ids) await deleteProfile({ projectId, id });
    },
    onSettled: (_data, _error, { projectId }) => invalidate(projectId),
  });
}

export function useUploadProfiles() {
  const invalidate = useInvalidateProfiles();
  return useMutation({
    mutationFn: uploadProfiles,
    onSettled: (_data, _error, { projectId }) => invalidate(projectId),
  });
}

export function usePlanProfile() {
  return useMutation({ mutationFn: planProfile });
}
