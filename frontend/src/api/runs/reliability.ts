/**
 * pass^k and pass@1 of a SENSEI run with repeats (`engine/regression/reliability.py`, README D33), from the run's
 * typed result (`reliability`): per profile both rates with their intervals, and each planned conversation's
 * repeats (`resultOf(run, "sensei").reliability`). A run stored before reliability existed has none.
 */
import type { components } from "../schema";

export type ProfileReliability = components["schemas"]["ProfileReliabilityResult"];

/** One planned conversation's repeats, with the profile it belongs to. */
export type PlannedReliability = components["schemas"]["PlannedReliabilityResult"] & { profile: string };

const ORDER: Record<PlannedReliability["verdict"], number> = { flaky: 0, failed: 1, inconclusive: 2, passed: 3 };

/** Every planned conversation that did not pass all its repeats, flaky ones first, across profiles. */
export function shakyConversations(profiles: ProfileReliability[]): PlannedReliability[] {
  return profiles
    .flatMap((p) => p.conversations.map((c) => ({ ...c, profile: p.profile })))
    .filter((c) => !(c.decided > 0 && c.passed === c.decided))
    .sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || a.planned_index - b.planned_index);
}
