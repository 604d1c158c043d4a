/**
 * Two runs of a project's security campaigns compared (`backend/runs/security_compare.py`, the engine's
 * `engine/security/compare.py`, the same code as `parley security compare`): breach rates per attack and delivery
 * mode, attempts newly breached or resisted, errors and inconclusive attempts apart, and a verdict. Quotes and
 * reasons in it were written by the chatbot or an LLM: they are shown as text.
 */
import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { DEFAULT_THRESHOLD } from "../runs/compare";
import { runKeys } from "../query-keys";
import type { components } from "../schema";

export type SecurityComparison = components["schemas"]["RunSecurityComparison"];
export type BreachGroup = components["schemas"]["BreachGroup"];
export type BreachSide = components["schemas"]["BreachSide"];
export type AttemptChange = components["schemas"]["AttemptChange"];
export type AttemptBrief = components["schemas"]["AttemptBrief"];

/** `runId` compared with the campaign run `baseline`; nothing is asked until a baseline is chosen. */
export function useSecurityComparison(runId: number, baseline: number | null, threshold: number) {
  return useQuery({
    queryKey: runKeys.securityComparison(runId, baseline ?? 0, threshold),
    queryFn: ({ signal }) => {
      const query: { baseline: number; threshold?: number } = { baseline: baseline ?? 0 };
      if (threshold !== DEFAULT_THRESHOLD) query.threshold = threshold;
      return unwrap(api.GET("/api/runs/{id}/security-compare/", { params: { path: { id: runId }, query }, signal }));
    },
    enabled: baseline !== null,
    staleTime: 60_000,
  });
}

/** A breach rate as "67 % (2/3)", or "—" when no attempt reached a decision. */
export function formatBreachRate(side: BreachSide): string {
  if (side.rate === null) return "—";
  return `${(100 * side.rate).toFixed(0)} % (${String(side.breached)}/${String(side.decided)})`;
}

/** The Wilson 95 % interval of a breach rate, "44–100 %". */
export function formatBreachInterval(side: BreachSide): string {
  if (side.rate === null) return "";
  return `${(100 * side.low).toFixed(0)}–${(100 * side.high).toFixed(0)} %`;
}

/** What a side left undecided, "2 error, 1 inconclusive", or "" when nothing. */
export function formatUndecided(side: BreachSide): string {
  const parts = [
    side.error ? `${String(side.error)} error` : "",
    side.inconclusive ? `${String(side.inconclusive)} inconclusive` : "",
  ];
  return parts.filter(Boolean).join(", ");
}
