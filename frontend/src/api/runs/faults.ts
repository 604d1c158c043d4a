import { isRecord } from "../../lib/json";
/**
 * Who is at fault for a failed or inconclusive SENSEI conversation (`engine/sensei/verdicts.py`, README D28): `failed`
 * always names a chatbot turn as its evidence; everything caused by the user side, Parley's own models, the
 * infrastructure or the test setup is `inconclusive`. Runs stored before this carry none of these fields: every
 * reader here answers null (or nothing) for them, and the pages then show no fault.
 */

export type Fault = "chatbot" | "simulated_user" | "parley_llm" | "infrastructure" | "test_setup";

/** In the order a QA engineer reads them: the chatbot first, then the causes that say nothing about it. */
export const FAULTS: readonly Fault[] = ["chatbot", "simulated_user", "parley_llm", "infrastructure", "test_setup"];

export function readFault(value: unknown): Fault | null {
  return FAULTS.find((fault) => fault === value) ?? null;
}

/** A 0-based turn index, or null. */
export function readTurn(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}

/** `{fault name: count}` as pairs in `FAULTS` order; unknown names and non-counts are left out; null when absent. */
export function readFaultCounts(value: unknown): [Fault, number][] | null {
  if (!isRecord(value)) return null;
  return FAULTS.flatMap((fault): [Fault, number][] => {
    const count = value[fault];
    return typeof count === "number" && Number.isFinite(count) && count > 0 ? [[fault, count]] : [];
  });
}

/** Who is at fault and the chatbot turn that shows it, from a conversation row or its record. */
export interface VerdictProof {
  fault: Fault | null;
  evidenceTurn: number | null;
}

/** The proof from the first of `sources` that has the fields (the API row before the stored record). */
export function readVerdictProof(...sources: unknown[]): VerdictProof {
  const source = sources.find((s) => isRecord(s) && ("fault" in s || "evidence_turn" in s));
  if (!isRecord(source)) return { fault: null, evidenceTurn: null };
  return { fault: readFault(source.fault), evidenceTurn: readTurn(source.evidence_turn) };
}
