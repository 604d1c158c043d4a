/**
 * A run's progress and log on its page, for every kind: the owner gets Cancel and the run's usage; everyone else
 * the same progress and the public log lines without any action (the server never sends them the owner-only lines).
 */
import type { Run } from "../../api/runs/runs";
import { RunProgress } from "../../components/RunProgress";

export function RunLivePanel({ run, readOnly }: { run: Run; readOnly: boolean }) {
  const owner = !readOnly && run.is_owner;
  return <RunProgress runId={run.id} title={owner ? "Progress and log" : "Progress"} readOnly={!owner} />;
}
