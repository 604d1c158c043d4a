/**
 * How a run's end is shown. Status alone can mislead: a TRACER run that found no functionality "succeeded", yet
 * it produced nothing to test with, so it is shown as a warning with the likely reasons instead of a green badge.
 */
import { resultOf, type Run, type RunStatus } from "../api/runs/runs";

export const STATUS_COLOR: Record<RunStatus, string> = {
  queued: "gray",
  running: "blue",
  succeeded: "teal",
  failed: "red",
  cancelled: "orange",
};

export interface RunOutcome {
  label: string;
  color: string;
  /** Why a finished run deserves a second look, for a warning under it; null when its status says it all. */
  warning: { title: string; text: string } | null;
}

export const TRACER_FOUND_NOTHING = {
  title: "TRACER found no functionality",
  text:
    "The exploration finished without learning anything the chatbot can do, so no profile was written. Read the " +
    "exploration's conversations: if the chatbot did not answer, test its connector; if it answered with its " +
    "fallback, check the connector's language and messages; otherwise try more sessions or turns.",
};

export function runOutcome(run: Pick<Run, "kind" | "status" | "params" | "result" | "cancel_requested">): RunOutcome {
  if ((run.status === "queued" || run.status === "running") && run.cancel_requested)
    return { label: "cancelling", color: "orange", warning: null };
  if (run.kind === "tracer" && run.status === "succeeded" && resultOf(run, "tracer")?.functionalities === 0)
    return { label: "found nothing", color: "yellow", warning: TRACER_FOUND_NOTHING };
  return { label: run.status, color: STATUS_COLOR[run.status], warning: null };
}
