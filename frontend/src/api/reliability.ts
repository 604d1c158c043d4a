/**
 * pass^k and pass@1 of a SENSEI run with repeats (`engine/regression/reliability.py`, README D33), from the run's
 * result (`reliability`): per profile both rates with their intervals, and each planned conversation's repeats.
 * Read defensively — a run stored before reliability existed has none.
 */
import { isRecord } from "./run-results";

export interface ReliabilityRate {
  rate: number | null;
  decided: number;
  low: number | null;
  high: number | null;
}

export interface PlannedReliability {
  profile: string;
  plannedIndex: number;
  inputs: Record<string, unknown>;
  repeats: number;
  decided: number;
  passed: number;
  verdict: string;
}

export interface ProfileReliability {
  profile: string;
  k: number;
  planned: number;
  passK: ReliabilityRate;
  passAt1: ReliabilityRate;
  flaky: number;
  conversations: PlannedReliability[];
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function rate(value: unknown): ReliabilityRate {
  const data = isRecord(value) ? value : {};
  return { rate: num(data.rate), decided: num(data.decided) ?? 0, low: num(data.low), high: num(data.high) };
}

const ORDER: Record<string, number> = { flaky: 0, failed: 1, inconclusive: 2, passed: 3 };

export function readReliability(result: unknown): ProfileReliability[] {
  const items = isRecord(result) && Array.isArray(result.reliability) ? result.reliability.filter(isRecord) : [];
  return items.map((item) => {
    const profile = typeof item.profile === "string" ? item.profile : "";
    const conversations = (Array.isArray(item.conversations) ? item.conversations.filter(isRecord) : []).map((c) => ({
      profile,
      plannedIndex: num(c.planned_index) ?? 0,
      inputs: isRecord(c.inputs) ? c.inputs : {},
      repeats: num(c.repeats) ?? 0,
      decided: num(c.decided) ?? 0,
      passed: num(c.passed) ?? 0,
      verdict: typeof c.verdict === "string" ? c.verdict : "inconclusive",
    }));
    return {
      profile,
      k: num(item.k) ?? 0,
      planned: num(item.planned) ?? 0,
      passK: rate(item.pass_k),
      passAt1: rate(item.pass_at_1),
      flaky: num(item.flaky) ?? conversations.filter((c) => c.verdict === "flaky").length,
      conversations,
    };
  });
}

/** Every planned conversation that did not pass all its repeats, flaky ones first, across profiles. */
export function shakyConversations(profiles: ProfileReliability[]): PlannedReliability[] {
  return profiles
    .flatMap((p) => p.conversations)
    .filter((c) => !(c.decided > 0 && c.passed === c.decided))
    .sort((a, b) => (ORDER[a.verdict] ?? 9) - (ORDER[b.verdict] ?? 9) || a.plannedIndex - b.plannedIndex);
}
