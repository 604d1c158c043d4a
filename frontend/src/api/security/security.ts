/**
 * Security campaigns: a project's campaign documents (YAML, validated on every save, like rules), the security runs
 * of a project, and what a run left — its attempts (verdict, reason, quoted evidence, transcript) and its breach
 * rates per attack and delivery mode.
 *
 * Attempt records and the statistics are typed by the API schema (the engine's `AttemptRecord`, `RunStatistics`).
 * Everything in a record was written by the chatbot under test or by an LLM: it is data, shown as text.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, unwrapEmpty } from "../client";
import { useLiveRunLists } from "../runs/live";
import { collectPages } from "../pagination";
import { campaignKeys, runKeys } from "../query-keys";
import type { components } from "../schema";
import type { ResponseJson } from "../types";
import type { Run } from "../runs/runs";

export type Campaign = ResponseJson<"/api/projects/{project_id}/campaigns/{id}/", "get", 200>;
export type CampaignPlan = ResponseJson<"/api/projects/{project_id}/campaigns/{id}/plan/", "post", 200>;

export const VERDICTS = ["breached", "resisted", "inconclusive", "error"] as const;
export type Verdict = (typeof VERDICTS)[number];

const projectPath = (projectId: number) => ({ project_id: String(projectId) });

/** The campaign a run played (`params.campaign.name`), or "—". */
export function campaignName(run: Pick<Run, "params">): string {
  const campaign = run.params.campaign as { name?: unknown } | null | undefined;
  return typeof campaign?.name === "string" ? campaign.name : "—";
}

/** Attempts made and planned, "done / total". */
export function attemptsText(run: Pick<Run, "progress">): string {
  return `${String(run.progress.done ?? 0)} / ${String(run.progress.total ?? 0)}`;
}

// -- campaign documents -----------------------------------------------------------------------------------------

export function useCampaigns(projectId: number | null) {
  return useQuery({
    queryKey: campaignKeys.list(projectId ?? 0),
    queryFn: ({ signal }) =>
      collectPages((page) =>
        unwrap(
          api.GET("/api/projects/{project_id}/campaigns/", {
            params: { path: projectPath(projectId ?? 0), query: { page } },
            signal,
          }),
        ),
      ),
    enabled: projectId !== null,
  });
}

export function saveCampaign({ projectId, id, text }: { projectId: number; id: number | null; text: string }) {
  return id === null
    ? unwrap(
        api.POST("/api/projects/{project_id}/campaigns/", {
          params: { path: projectPath(projectId) },
          body: { text },
        }),
      )
    : unwrap(
        api.PATCH("/api/projects/{project_id}/campaigns/{id}/", {
          params: { path: { ...projectPath(projectId), id } },
          body: { text },
        }),
      );
}

export function useSaveCampaign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveCampaign,
    onSuccess: (_saved, { projectId }) => queryClient.invalidateQueries({ queryKey: campaignKeys.list(projectId) }),
  });
}

export function useDeleteCampaign() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, id }: { projectId: number; id: number }) =>
      unwrapEmpty(
        api.DELETE("/api/projects/{project_id}/campaigns/{id}/", {
          params: { path: { ...projectPath(projectId), id } },
        }),
      ),
    onSettled: (_data, _error, { projectId }) =>
      queryClient.invalidateQueries({ queryKey: campaignKeys.list(projectId) }),
  });
}

/** Rewrites a campaign (a reference `security.yml` too) in Parley's own format. */
export function useConvertCampaign() {
  return useMutation({
    mutationFn: async ({ projectId, text }: { projectId: number; text: string }) => {
      const body = await unwrap(
        api.POST("/api/projects/{project_id}/campaigns/convert/", {
          params: { path: projectPath(projectId) },
          body: { text },
        }),
      );
      return body.text;
    },
  });
}

export function useCampaignPlan() {
  return useMutation({
    mutationFn: ({ projectId, id }: { projectId: number; id: number }) =>
      unwrap(
        api.POST("/api/projects/{project_id}/campaigns/{id}/plan/", {
          params: { path: { ...projectPath(projectId), id } },
        }),
      ),
  });
}

// -- runs ---------------------------------------------------------------------------------------------------------

/** The project's security runs, newest first; refetched live when runs change. */
export function useSecurityRuns(projectId: number | null) {
  useLiveRunLists(projectId !== null);
  return useQuery({
    queryKey: runKeys.ofProject(projectId ?? 0, "security"),
    queryFn: ({ signal }) =>
      collectPages((page) =>
        unwrap(
          api.GET("/api/projects/{project_id}/runs/", {
            params: {
              path: { project_id: projectId ?? 0 },
              query: { kind: "security", page, ordering: "-created_at" },
            },
            signal,
          }),
        ),
      ),
    enabled: projectId !== null,
  });
}

// -- attempts ------------------------------------------------------------------------------------------------------

export type AttemptRecord = components["schemas"]["AttemptRecord"];
/** `phase` `prefix`: TRACER's recorded turns replayed to reach the state attacked from. */
export type TurnView = components["schemas"]["TranscriptTurn"];

/** An attempt as the API serves it: the row's columns and its record (typed by the API schema). */
export type Attempt = ResponseJson<"/api/runs/{id}/attempts/", "get", 200>["results"][number];

export interface AttemptFilters {
  page: number;
  verdict?: Verdict;
  attack?: string;
}

/** One page of a run's attempts; `done` (attempts finished so far) is part of the key, so a live run re-reads. */
export function useAttempts(runId: number, filters: AttemptFilters, done: number) {
  return useQuery({
    queryKey: runKeys.attempts(runId, filters, done),
    queryFn: ({ signal }) => {
      const query = {
        page: filters.page,
        ...(filters.verdict && { verdict: filters.verdict }),
        ...(filters.attack && { attack: filters.attack }),
      };
      return unwrap(api.GET("/api/runs/{id}/attempts/", { params: { path: { id: runId }, query }, signal }));
    },
    placeholderData: keepPreviousData,
  });
}

// -- breach rates --------------------------------------------------------------------------------------------------

/** One group's attempts, verdict counts and breach rate with its 95 % Wilson interval (null when none decided). */
export type BreachRow = components["schemas"]["BreachRow"];

/** A security run's breach rates (`stats/`): totals, per attack, per delivery mode, per TRACER state. */
export function useSecurityStats(runId: number, done: number) {
  return useQuery({
    queryKey: runKeys.securityStats(runId, done),
    queryFn: ({ signal }) => unwrap(api.GET("/api/runs/{id}/stats/", { params: { path: { id: runId } }, signal })),
    placeholderData: keepPreviousData,
  });
}

/**
 * `text` cut into pieces, the pieces that are one of `quotes` marked: how the evidence is highlighted in a reply.
 * Pure string work — the caller renders every piece as a text node.
 */
export function highlightQuotes(value: string, quotes: readonly string[]): { text: string; quoted: boolean }[] {
  const wanted = quotes.filter((quote) => quote.trim() !== "");
  const pieces: { text: string; quoted: boolean }[] = [];
  let rest = value;
  while (rest !== "") {
    let best: { at: number; quote: string } | null = null;
    for (const quote of wanted) {
      const at = rest.indexOf(quote);
      if (at >= 0 && (best === null || at < best.at)) best = { at, quote };
    }
    if (best === null) {
      pieces.push({ text: rest, quoted: false });
      break;
    }
    if (best.at > 0) pieces.push({ text: rest.slice(0, best.at), quoted: false });
    pieces.push({ text: best.quote, quoted: true });
    rest = rest.slice(best.at + best.quote.length);
  }
  return pieces;
}
