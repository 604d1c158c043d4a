/**
 * SENSEI-check rules of a project (YAML documents validated on every save) and the results of a check run.
 *
 * Whether a rule is active is read by the server from the YAML's `active:` key, so activating or deactivating a
 * rule edits that key in the text (`setRuleActive`, which keeps the rest of the document, comments included).
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { isMap, parseDocument } from "yaml";
import { api, unwrap, unwrapEmpty } from "../client";
import { collectPages } from "../pagination";
import { ruleKeys, runKeys } from "../query-keys";
import type { ResponseJson } from "../types";

export type Rule = ResponseJson<"/api/projects/{project_id}/rules/{id}/", "get", 200>;
export type RuleResultRow = ResponseJson<"/api/runs/{id}/results/", "get", 200>[number];

const projectPath = (projectId: number) => ({ project_id: String(projectId) });

export function getRules(projectId: number, signal?: AbortSignal) {
  return collectPages((page) =>
    unwrap(
      api.GET("/api/projects/{project_id}/rules/", {
        params: { path: projectPath(projectId), query: { page } },
        signal,
      }),
    ),
  );
}

export function useRules(projectId: number | null) {
  return useQuery({
    queryKey: ruleKeys.list(projectId ?? 0),
    queryFn: ({ signal }) => getRules(projectId ?? 0, signal),
    enabled: projectId !== null,
  });
}

export function saveRule({ projectId, id, text }: { projectId: number; id: number | null; text: string }) {
  return id === null
    ? unwrap(
        api.POST("/api/projects/{project_id}/rules/", { params: { path: projectPath(projectId) }, body: { text } }),
      )
    : unwrap(
        api.PATCH("/api/projects/{project_id}/rules/{id}/", {
          params: { path: { ...projectPath(projectId), id } },
          body: { text },
        }),
      );
}

export function deleteRule({ projectId, id }: { projectId: number; id: number }) {
  return unwrapEmpty(
    api.DELETE("/api/projects/{project_id}/rules/{id}/", { params: { path: { ...projectPath(projectId), id } } }),
  );
}

export function useSaveRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveRule,
    onSuccess: (_rule, { projectId }) => queryClient.invalidateQueries({ queryKey: ruleKeys.list(projectId) }),
  });
}

export function useDeleteRule() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteRule,
    onSettled: (_data, _error, { projectId }) => queryClient.invalidateQueries({ queryKey: ruleKeys.list(projectId) }),
  });
}

/**
 * The rule's text with `active:` set, everything else (order, comments, quoting) as it was.
 * Throws when the text is not a YAML mapping (an invalid rule is fixed in the editor, not toggled).
 */
export function setRuleActive(text: string, active: boolean): string {
  const document = parseDocument(text);
  if (document.errors.length > 0 || !isMap(document.contents)) {
    throw new Error("This rule is not a valid YAML mapping: fix it in the editor first.");
  }
  document.set("active", active);
  return document.toString();
}

/** Activates or deactivates a rule by editing its YAML and saving it. */
export function useSetRuleActive() {
  const save = useSaveRule();
  return useMutation({
    mutationFn: ({ projectId, rule, active }: { projectId: number; rule: Rule; active: boolean }) =>
      save.mutateAsync({ projectId, id: rule.id, text: setRuleActive(rule.text, active) }),
  });
}

// -- results of a check run ------------------------------------------------------------------------------------

export function getRuleResults(runId: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/runs/{id}/results/", { params: { path: { id: runId } }, signal }));
}

export function ruleResultsQueryOptions(runId: number) {
  return queryOptions({ queryKey: runKeys.ruleResults(runId), queryFn: ({ signal }) => getRuleResults(runId, signal) });
}

export function useRuleResults(runId: number, enabled: boolean) {
  return useQuery({ ...ruleResultsQueryOptions(runId), enabled });
}
