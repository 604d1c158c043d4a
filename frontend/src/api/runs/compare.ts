/**
 * The regression workflow: a project's baseline run and a SENSEI run compared with it
 * (`backend/runs/compare.py`, the engine's `engine/regression`). The comparison is computed by the server on every
 * read; it changes only when a run or a check run over it does, so it is kept while the page is open.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { projectKeys, runKeys } from "../query-keys";
import { resultOf, type Run } from "./runs";
import type { components } from "../schema";

export type Comparison = components["schemas"]["RunComparison"];
export type ComparedGroup = components["schemas"]["ComparedGroup"];
export type ComparedSide = components["schemas"]["ComparedSide"];
export type ComparedMatch = components["schemas"]["ComparedMatch"];
export type ComparedBrief = components["schemas"]["ComparedBrief"];
export type ComparisonVerdict = components["schemas"]["ComparisonVerdictEnum"];
export type GroupStatus = components["schemas"]["ComparedGroupStatusEnum"];

/** The threshold the server uses when none is given: a pass rate must move 10 points to count. */
export const DEFAULT_THRESHOLD = 0.1;

export function getComparison(runId: number, baseline: number | null, threshold: number, signal?: AbortSignal) {
  const query: { baseline?: number; threshold?: number } = {};
  if (baseline !== null) query.baseline = baseline;
  if (threshold !== DEFAULT_THRESHOLD) query.threshold = threshold;
  return unwrap(api.GET("/api/runs/{id}/compare/", { params: { path: { id: runId }, query }, signal }));
}

/** `runId` compared with `baseline` (null: its project's baseline run). */
export function useComparison(runId: number, baseline: number | null, threshold: number) {
  return useQuery({
    queryKey: runKeys.comparison(runId, baseline, threshold),
    queryFn: ({ signal }) => getComparison(runId, baseline, threshold, signal),
    enabled: runId > 0,
    retry: false,
  });
}

/** Which run is the project's baseline (`run` is null when there is none). */
export function useProjectBaseline(projectId: number | null) {
  return useQuery({
    queryKey: projectKeys.baseline(projectId ?? 0),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{project_id}/baseline/", { params: { path: { project_id: projectId ?? 0 } }, signal }),
      ),
    enabled: projectId !== null,
  });
}

function setBaseline({ runId, baseline }: { runId: number; baseline: boolean }) {
  const params = { params: { path: { id: runId } } };
  return unwrap(
    baseline ? api.POST("/api/runs/{id}/baseline/", params) : api.DELETE("/api/runs/{id}/baseline/", params),
  );
}

/** Marks (or unmarks) a run as its project's baseline; the project's baseline and every comparison refresh. */
export function useSetBaseline() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setBaseline,
    onSuccess: async (baseline) => {
      queryClient.setQueryData(projectKeys.baseline(baseline.project), baseline);
      await queryClient.invalidateQueries({ queryKey: runKeys.comparisons });
    },
  });
}

/** Starts the same SENSEI run again against the chatbot as it is now, answering from this run's LLM calls. */
export function useRerun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: number) => unwrap(api.POST("/api/runs/{id}/rerun/", { params: { path: { id: runId } } })),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
      return queryClient.invalidateQueries({ queryKey: runKeys.lists });
    },
  });
}

export type ReplaySavings = components["schemas"]["ReplaySavings"] & { source: number };

/** What a re-run saved (its result's `replay`), or null for a run that replayed nothing. */
export function replayOf(run: Pick<Run, "result">): ReplaySavings | null {
  const replay = resultOf(run, "sensei")?.replay ?? null;
  return replay !== null && replay.source !== null ? { ...replay, source: replay.source } : null;
}

/** A pass rate as "83 % (5/6)", or "—" when nothing was decided. */
export function formatRate(side: ComparedSide): string {
  if (side.rate === null) return "—";
  return `${(100 * side.rate).toFixed(0)} % (${String(side.passed)}/${String(side.decided)})`;
}

/** The Wilson 95 % interval of a pass rate, "61–100 %". */
export function formatInterval(side: ComparedSide): string {
  if (side.rate === null) return "";
  return `${(100 * side.low).toFixed(0)}–${(100 * side.high).toFixed(0)} %`;
}

/** A change of a pass rate in points, "−100 points". */
export function formatPoints(value: number | null): string {
  if (value === null) return "—";
  const points = Math.round(100 * value);
  return `${points > 0 ? "+" : points < 0 ? "−" : "±"}${String(Math.abs(points))} points`;
}

export const VERDICT_COLORS: Record<ComparisonVerdict, string> = {
  regressed: "red",
  improved: "green",
  unchanged: "gray",
  inconclusive: "yellow",
};

export const STATUS_COLORS: Record<GroupStatus, string> = {
  regressed: "red",
  improved: "green",
  unchanged: "gray",
  inconclusive: "yellow",
  new: "blue",
  missing: "orange",
};
