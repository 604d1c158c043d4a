/**
 * A run's log as the cache holds it, and how new lines are merged into it. Both the REST hooks (project-runs.ts)
 * and the live updates (live.ts) write there, so the merge lives here, below both; the keys are in query-keys.ts.
 */
import type { ResponseJson } from "../types";
import { isRecord } from "../../lib/json";

type RunEventBody = ResponseJson<"/api/runs/{id}/events/", "get", 200>["results"][number];

/** An event with its `data` checked to be an object. */
export interface RunEvent {
  id: number;
  type: RunEventBody["type"];
  created_at: string;
  data: Record<string, unknown>;
}

/** Events kept on screen; older ones scroll out (the full log stays on the server). */
export const MAX_EVENTS_KEPT = 2_000;

export function readRunEvent(event: RunEventBody): RunEvent {
  return {
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    data: isRecord(event.data) ? event.data : {},
  };
}

/** `held` with `incoming` added: each id once, in id order, the newest MAX_EVENTS_KEPT. */
export function mergeEvents(held: readonly RunEvent[], incoming: readonly RunEvent[]): RunEvent[] {
  const seen = new Set(held.map((event) => event.id));
  const added = incoming.filter((event) => !seen.has(event.id));
  if (added.length === 0) return [...held];
  const appended = [...held, ...added];
  // Writers run side by side, so an event may arrive after one with a higher id: keep the log in id order.
  const inOrder = appended.every((event, i) => i === 0 || event.id > (appended[i - 1]?.id ?? -1));
  const merged = inOrder ? appended : appended.sort((a, b) => a.id - b.id);
  return merged.length > MAX_EVENTS_KEPT ? merged.slice(-MAX_EVENTS_KEPT) : merged;
}
