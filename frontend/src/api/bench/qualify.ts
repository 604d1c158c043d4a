/**
 * Model qualification (issue 36): the estimate and start of a `qualify` run on an LLM key, its typed result
 * (`QualifyResult`), applying its recommendation to a project, and each model's last qualification per key — what
 * the model pickers show beside a name.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { projectKeys } from "../query-keys";
import type { components } from "../schema";
import type { RequestJson } from "../types";

export type QualifyStart = RequestJson<"/api/keys/{id}/qualify/", "post">;
export type QualifyEstimate = components["schemas"]["Estimate"];
export type QualifyResult = components["schemas"]["QualifyResult"];
export type RoleFigures = components["schemas"]["RoleFigures"];
export type ExplorerFigures = components["schemas"]["ExplorerFigures"];
export type QualificationLabel = components["schemas"]["QualificationLabel"];

export const qualifyKeys = {
  result: (runId: number) => ["qualification", runId] as const,
  labels: (keyId: number) => ["qualification-labels", keyId] as const,
};

export function useQualifyEstimate() {
  return useMutation({
    mutationFn: ({ keyId, body }: { keyId: number; body: QualifyStart }) =>
      unwrap(api.POST("/api/keys/{id}/qualify/estimate/", { params: { path: { id: keyId } }, body })),
  });
}

export function useStartQualify() {
  return useMutation({
    mutationFn: ({ keyId, body }: { keyId: number; body: QualifyStart }) =>
      unwrap(api.POST("/api/keys/{id}/qualify/", { params: { path: { id: keyId } }, body })),
  });
}

export function useQualification(runId: number, enabled: boolean) {
  return useQuery({
    queryKey: qualifyKeys.result(runId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/{id}/qualification/", { params: { path: { id: runId } }, signal })),
    enabled,
    staleTime: Infinity,
  });
}

export function useApplyQualification() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, project }: { runId: number; project: number }) =>
      unwrap(api.POST("/api/runs/{id}/qualification/apply/", { params: { path: { id: runId } }, body: { project } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

export function useKeyQualifications(keyId: number | null) {
  return useQuery({
    queryKey: qualifyKeys.labels(keyId ?? 0),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/keys/{id}/qualifications/", { params: { path: { id: keyId ?? 0 } }, signal })),
    enabled: keyId !== null,
  });
}

const percent = (value: number | null) => (value === null ? "–" : `${String(Math.round(value))} %`);

function ago(when: string, now: Date): string {
  const days = Math.floor((now.getTime() - new Date(when).getTime()) / 86_400_000);
  if (days <= 0) return "today";
  return days === 1 ? "yesterday" : `${String(days)} days ago`;
}

/** "82 % kills · 0 false alarms · $0.41/kill, 3 days ago" (time per kill for an unpriced model). */
export function qualificationText(label: QualificationLabel, now = new Date()): string {
  const alarms = label.false_alarm_rate === 0 ? "0 false alarms" : `${percent(label.false_alarm_rate)} false alarms`;
  const perKill =
    label.cost_per_kill !== null
      ? `$${label.cost_per_kill.toFixed(2)}/kill`
      : label.seconds_per_kill !== null
        ? `${label.seconds_per_kill.toFixed(1)} s/kill`
        : "no kill";
  return `${percent(label.kill_rate)} kills · ${alarms} · ${perKill}, ${ago(label.finished_at, now)}`;
}

/** Per model name, the text of its last qualification on the key. */
export function useQualificationTexts(keyId: number | null): Record<string, string> {
  const labels = useKeyQualifications(keyId);
  const out: Record<string, string> = {};
  for (const label of labels.data ?? []) out[label.model] = qualificationText(label);
  return out;
}
