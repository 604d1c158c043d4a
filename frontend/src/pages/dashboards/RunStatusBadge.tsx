import { Badge, Progress, Stack } from "@mantine/core";
import { progressPercent } from "../../api/runs/project-runs";
import { isRunActive, type Run } from "../../api/runs/runs";
import { runOutcome } from "../../components/run-outcome";

/** A run's status (a TRACER run that found nothing is a warning), with a small progress bar while it is running. */
export function RunStatusBadge({ run }: { run: Run }) {
  const active = isRunActive(run.status);
  const outcome = runOutcome(run);
  const percent = progressPercent(run);
  return (
    <Stack gap={4} miw={90}>
      <Badge color={outcome.color} variant="light" title={outcome.warning?.title}>
        {outcome.label}
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
