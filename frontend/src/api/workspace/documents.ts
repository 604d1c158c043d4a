/**
 * What the YAML documents of a project — SENSEI profiles, check rules, security campaigns, personalities — share
 * on the server (one document view serves them all): a starting template, and validation of a text without saving
 * it. Their lists, saving and deleting stay with each kind (profiles.ts, rule-results.ts, security.ts), whose rows
 * differ.
 */
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import type { components } from "../schema";
import { type DocumentKind, documentKeys } from "../query-keys";

export type { DocumentKind } from "../query-keys";

const TEMPLATE_PATHS = {
  profiles: "/api/projects/{project_id}/profiles/template/",
  rules: "/api/projects/{project_id}/rules/template/",
  campaigns: "/api/projects/{project_id}/campaigns/template/",
  personalities: "/api/projects/{project_id}/personalities/template/",
} as const;

const VALIDATE_PATHS = {
  profiles: "/api/projects/{project_id}/profiles/validate/",
  rules: "/api/projects/{project_id}/rules/validate/",
  campaigns: "/api/projects/{project_id}/campaigns/validate/",
  personalities: "/api/projects/{project_id}/personalities/validate/",
} as const;

export async function getDocumentTemplate(kind: DocumentKind, projectId: number, signal?: AbortSignal) {
  const body = await unwrap(
    api.GET(TEMPLATE_PATHS[kind], { params: { path: { project_id: String(projectId) } }, signal }),
  );
  return body.text;
}

export function validateDocument(
  kind: DocumentKind,
  projectId: number,
  text: string,
  signal?: AbortSignal,
): Promise<components["schemas"]["ValidationResult"]> {
  return unwrap(
    api.POST(VALIDATE_PATHS[kind], { params: { path: { project_id: String(projectId) } }, body: { text }, signal }),
  );
}

/** The text a new document of `kind` starts from. */
export function useDocumentTemplate(kind: DocumentKind, projectId: number, enabled: boolean) {
  return useQuery({
    queryKey: documentKeys(kind).template(projectId),
    queryFn: ({ signal }) => getDocumentTemplate(kind, projectId, signal),
    enabled,
    staleTime: Infinity,
  });
}

/** Live validation (debounce the text before passing it); keeps the previous answer while the next loads. */
export function useDocumentValidation(kind: DocumentKind, projectId: number, text: string, enabled: boolean) {
  return useQuery({
    queryKey: documentKeys(kind).validation(projectId, text),
    queryFn: ({ signal }) => validateDocument(kind, projectId, text, signal),
    enabled,
    staleTime: Infinity,
    gcTime: 60_000,
    placeholderData: (previous) => previous,
  });
}
