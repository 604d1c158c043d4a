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

/** `{fault name: count}` as pairs in `FAULTS` order; unknown names and non-counts are left out; null when absent. */
export function readFaultCounts(value: unknown): [Fault, number][] | null {
  if (!isRecord(value)) return null;
  return FAULTS.flatMap((fault): [Fault, number][] => {
    const count = value[fault];
    return typeof count === "number" && Number.isFinite(count) && count > 0 ? [[fault, count]] : [];
  });
}
