/** How the bench pages name its statuses, kill reasons and phases, and write its figures. */
import type { MutantStatus } from "../../api/bench/runs-bench";

export const MUTANT_COLOR: Record<MutantStatus, string> = {
  killed: "teal",
  live: "red",
  inconclusive: "orange",
  stillborn: "gray",
};

/** The kill reasons of `backend/engine/evaluation/findings.py`, in words. */
export const REASON_HELP: Record<string, string> = {
  crash: "the bot answered an HTTP 5xx or an unreadable reply",
  timeout: "no reply in time",
  loop: "a fallback or repetition loop",
  unmet_goal: "the goals could not be verified",
  missing_output: "an output the profile expects was not found",
  no_refusal: "an out-of-range input led to an output instead of a refusal or the fallback",
  model_rule: "a rule Parley wrote from TRACER's model failed (offered options, language)",
  wrong_output: "a ground-truth output rule failed (prices, values, response shape)",
  failed_rule: "another ground-truth rule failed (FAQ answers, offered options)",
};

export const PHASE_LABEL: Record<string, string> = {
  tracer: "TRACER on the original",
  judge: "Judging TRACER's functionalities",
  sensei_original: "SENSEI on the original",
  sensei_mutants: "SENSEI on the mutants",
  sensei_controls: "SENSEI on the controls",
};

/** "a kill reason · profile · #index · rule or output". */
export function formatSignature(signature: readonly (string | number | null)[]): string {
  const [reason, profile, index, detail] = signature;
  const number = index === null || index === undefined ? "?" : String(index);
  return [reason, profile, `#${number}`, detail].filter(Boolean).join(" · ");
}

export function formatTokens(prompt: number | null, completion: number | null): string {
  if (prompt === null && completion === null) return "—";
  return `${(prompt ?? 0).toLocaleString()} + ${(completion ?? 0).toLocaleString()}`;
}

/** `[found, total]` as "found/total"; "" when it is not a pair. */
export function formatFraction(value: readonly number[] | null): string {
  const [found, total] = value ?? [];
  return found === undefined || total === undefined ? "" : `${String(found)}/${String(total)}`;
}
