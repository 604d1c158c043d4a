/**
 * A run's progress and log. The owner gets the shared `RunProgress` (with Cancel); everyone else gets the same
 * numbers and public log lines without any action (the server never sends them the owner-only lines).
 */
import { Badge, Box, Card, Group, Progress, ScrollArea, Stack, Text, Title } from "@mantine/core";
import { useLiveRunState } from "../../api/live";
import { readRunProgress, useRunEvents } from "../../api/project-runs";
import { isRunActive, type Run } from "../../api/runs";
import { LiveIndicator } from "../../components/LiveIndicator";
import { describeEvent, RunProgress } from "../../components/RunProgress";
import { runOutcome } from "../../components/run-outcome";

function ReadOnlyProgress({ run }: { run: Run }) {
  const active = isRunActive(run.status);
  const events = useRunEvents(run.id, active);
  const live = useLiveRunState(run.id);
  const progress = readRunProgress(run);
  const percent =
    progress.total !== null && progress.total > 0 && progress.done !== null
      ? Math.min(100, Math.round((progress.done / progress.total) * 100))
      : null;
  const lines = (events.data ?? []).filter((event) => event.type !== "progress");
  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Group gap="xs">
          <Title order={2} size="h5">
            Progress
          </Title>
          <Badge color={runOutcome(run).color}>{runOutcome(run).label}</Badge>
          <LiveIndicator state={live} />
        </Group>
        <Stack gap={4} role="status" aria-label="Run progress">
          <Text size="sm">{progress.stage ? `Stage: ${progress.stage}` : ""}</Text>
          <Progress
            value={percent ?? (active || run.status === "succeeded" ? 100 : 0)}
            animated={active}
            color={runOutcome(run).color}
            aria-label="Progress"
          />
        </Stack>
        <ScrollArea.Autosize
          mah={320}
          type="auto"
          viewportProps={{ tabIndex: 0, role: "region", "aria-label": "Log lines" }}
        >
          {lines.length === 0 ? (
            <Text size="sm" c="dimmed">
              {active ? "Waiting for the first lines…" : "No log lines."}
            </Text>
          ) : (
            <Box component="ol" aria-label="Run log" m={0} p={0} style={{ listStyle: "none" }}>
              {lines.map((event) => {
                const line = describeEvent(event);
                return (
                  <Box component="li" key={event.id} py={3}>
                    <Group gap={6} wrap="nowrap" align="baseline">
                      <Badge size="xs" variant="outline" style={{ flexShrink: 0 }}>
                        {line.label}
                      </Badge>
                      <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                        {line.body}
                      </Text>
                    </Group>
                  </Box>
                );
              })}
            </Box>
          )}
        </ScrollArea.Autosize>
      </Stack>
    </Card>
  );
}

export function RunLivePanel({ run, readOnly }: { run: Run; readOnly: boolean }) {
  if (!readOnly && run.is_owner) return <RunProgress runId={run.id} title="Progress and log" />;
  return <ReadOnlyProgress run={run} />;
}
