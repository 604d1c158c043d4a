/** Projects: a chatbot (connector), an LLM key and models, a budget, and whether the results are public. */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, unwrapEmpty } from "../client";
import { collectPages } from "../pagination";
import { connectorKeys, projectKeys } from "../query-keys";
import type { RequestJson, ResponseJson } from "../types";

export type Project = ResponseJson<"/api/projects/{id}/", "get", 200>;
export type ProjectInput = RequestJson<"/api/projects/", "post">;

export function getProjects(page = 1, signal?: AbortSignal) {
  return unwrap(api.GET("/api/projects/", { params: { query: { page, scope: "mine" } }, signal }));
}

export function getProject(id: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/projects/{id}/", { params: { path: { id } }, signal }));
}

export function createProject(body: ProjectInput) {
  return unwrap(api.POST("/api/projects/", { body }));
}

export function updateProject({ id, body }: { id: number; body: ProjectInput }) {
  return unwrap(api.PATCH("/api/projects/{id}/", { params: { path: { id } }, body }));
}

export function deleteProject(id: number) {
  return unwrapEmpty(api.DELETE("/api/projects/{id}/", { params: { path: { id } } }));
}

export function projectsPageQueryOptions(page: number) {
  return queryOptions({ queryKey: projectKeys.page(page), queryFn: ({ signal }) => getProjects(page, signal) });
}

export function useProjectsPage(page: number) {
  return useQuery(projectsPageQueryOptions(page));
}

export function useAllProjects() {
  return useQuery({
    queryKey: projectKeys.everything,
    queryFn: ({ signal }) => collectPages((page) => getProjects(page, signal)),
  });
}

export function useProject(id: number, enabled = true) {
  return useQuery({ queryKey: projectKeys.detail(id), queryFn: ({ signal }) => getProject(id, signal), enabled });
}

function useInvalidateProjects() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: projectKeys.all });
}

export function useCreateProject() {
  const invalidate = useInvalidateProjects();
  return useMutation({ mutationFn: createProject, onSuccess: invalidate });
}

export function useUpdateProject() {
  const invalidate = useInvalidateProjects();
  return useMutation({ mutationFn: updateProject, onSuccess: invalidate });
}

export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteProject,
    // Connectors list the projects that use them.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: projectKeys.all }),
        queryClient.invalidateQueries({ queryKey: connectorKeys.all }),
      ]),
  });
}
