import { Badge, Progress, Stack } from "@mantine/core";
import { readRunProgress } from "../../api/project-runs";
import { isRunActive, type Run } from "../../api/runs";
import { STATUS_COLOR } from "./format";

/** A run's status, with a small progress bar while it is running. */
export function RunStatusBadge({ run }: { run: Run }) {
  const progress = readRunProgress(run);
  const active = isRunActive(run.status);
  const percent =
    progress.total !== null && progress.total > 0 && progress.done !== null
      ? Math.min(100, Math.round((progress.done / progress.total) * 100))
      : null;
  return (
    <Stack gap={4} miw={90}>
      <Badge color={STATUS_COLOR[run.status]} variant="light">
        {run.cancel_requested && active ? "cancelling" : run.status}
      </Badge>
      {active && (
        <Progress
          size="sm"
          value={percent ?? 100}
          striped={percent === null}
          animated
          aria-label={`Progress of run ${String(run.id)}`}
        />
      )}
    </Stack>
  );
}
