/**
 * The one live view of a run, whatever its kind (TRACER, SENSEI, check, bench, security): status, stage, progress,
 * counters, LLM usage, its log as it grows, and Cancel. While the run is queued or running the server pushes each
 * change (api/runs/live.ts); once it has finished the log is read one last time. Read-only (a visitor, a run of someone
 * else's) it shows the progress and the log lines the server lets that reader see, without numbers or actions.
 * Everything the chatbot or an LLM said is rendered as text.
 */
import {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Progress,
  ScrollArea,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { ApiError } from "../api/errors";
import { progressPercent, type RunEvent, useCancelRun, useRunEvents } from "../api/runs/project-runs";
import { type Run, isRunActive } from "../api/runs/runs";
import { paths } from "../lib/paths";
import { ConfirmDialog } from "./ConfirmDialog";
import { LiveIndicator } from "./LiveIndicator";
import { CostText } from "./CostText";
import { runOutcome, STATUS_COLOR } from "./run-outcome";
import { useFollowedRun } from "./use-followed-run";

function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

function formatSeconds(seconds: number | null): string {
  if (seconds === null) return "—";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${String(minutes)} min ${String(Math.round(seconds % 60))} s`;
}

function humanize(name: string): string {
  return name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

/**
 * Which SENSEI conversation a line belongs to, "profile #n" (n counted from 1, as the conversations list does):
 * conversations run side by side, so their lines interleave. Empty for TRACER's lines.
 */
export function conversationLabel(data: Record<string, unknown>): string {
  const profile = text(data.profile);
  if (!profile) return "";
  const index =
    typeof data.index === "number" ? data.index : Number(/-(\d+)$/.exec(text(data.conversation))?.[1] ?? Number.NaN);
  return Number.isInteger(index) ? `${profile} #${String(index + 1)}` : profile;
}

/** One event as a line of the log. */
export function describeEvent(event: RunEvent): { label: string; body: string; tone: "default" | "warning" | "chat" } {
  const data = event.data;
  switch (event.type) {
    case "stage":
      return { label: "stage", body: text(data.stage) || text(data.name) || text(data.message), tone: "default" };
    case "progress":
      return {
        label: "progress",
        body: `${text(data.done)} of ${text(data.total)}${text(data.message) ? ` — ${text(data.message)}` : ""}`,
        tone: "default",
      };
    case "message": {
      const session = text(data.session);
      const who = conversationLabel(data) || (session ? `session ${session}` : "");
      const role = text(data.role) || "message";
      return { label: who ? `${who} · ${role}` : role, body: text(data.text), tone: "chat" };
    }
    case "functionality":
      return {
        label: "functionality",
        body: [text(data.name), text(data.description)].filter(Boolean).join(" — "),
        tone: "default",
      };
    case "warning":
      return { label: "warning", body: text(data.message) || text(data.text), tone: "warning" };
    case "conversation":
      return {
        label: "conversation",
        body:
          text(data.message) ||
          [
            text(data.session) && `session ${text(data.session)}`,
            text(data.status),
            conversationLabel(data) && `${conversationLabel(data)} finished`,
            Array.isArray(data.errors) && data.errors.length > 0 && `${String(data.errors.length)} error(s)`,
          ]
            .filter(Boolean)
            .join(" · "),
        tone: "default",
      };
    default: {
      const body = text(data.message) || text(data.text) || JSON.stringify(data);
      return { label: event.type, body: body.length > 2000 ? `${body.slice(0, 2000)}…` : body, tone: "default" };
    }
  }
}

function RunLog({ events, live }: { events: RunEvent[]; live: boolean }) {
  const viewport = useRef<HTMLDivElement>(null);
  const [follow, setFollow] = useState(true);
  const shown = events.filter((event) => event.type !== "progress");

  useEffect(() => {
    const element = viewport.current;
    if (follow && element) element.scrollTop = element.scrollHeight;
  }, [shown.length, follow]);

  return (
    <Box>
      <Group justify="space-between" mb={4}>
        <Title order={3} size="h6">
          Log
        </Title>
        {!follow && (
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => {
              setFollow(true);
            }}
          >
            Follow new lines
          </Button>
        )}
      </Group>
      <ScrollArea.Autosize
        mah={320}
        viewportRef={viewport}
        // Scrollable from the keyboard too: the viewport takes the focus, and says what it holds.
        viewportProps={{ tabIndex: 0, role: "region", "aria-label": "Log lines" }}
        onScrollPositionChange={({ y }) => {
          const element = viewport.current;
          if (element) setFollow(element.scrollHeight - element.clientHeight - y < 24);
        }}
        type="auto"
      >
        {shown.length === 0 ? (
          <Text size="sm" c="dimmed" p="xs">
            {live ? "Waiting for the first lines…" : "No log lines."}
          </Text>
        ) : (
          <Box component="ol" aria-label="Run log" m={0} p={0} style={{ listStyle: "none" }}>
            {shown.map((event) => {
              const line = describeEvent(event);
              return (
                <Box
                  component="li"
                  key={event.id}
                  py={3}
                  px={6}
                  style={{ borderBottom: "1px solid var(--mantine-color-default-border)" }}
                  bg={line.tone === "warning" ? "var(--mantine-color-yellow-light)" : undefined}
                >
                  <Group gap={6} wrap="nowrap" align="baseline">
                    <Text size="xs" c="dimmed" ff="monospace" style={{ whiteSpace: "nowrap" }}>
                      {new Date(event.created_at).toLocaleTimeString()}
                    </Text>
                    <Badge size="xs" variant={line.tone === "chat" ? "light" : "outline"} style={{ flexShrink: 0 }}>
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
    </Box>
  );
}

interface RunProgressProps {
  runId: number;
  /** Called once when the run is seen to finish. */
  onFinished?: (run: Run) => void;
  title?: string;
  /** Link to the run's own page: "Open the run page" while it goes, "Open the report" once it has ended. */
  linkToRunPage?: boolean;
  /** Progress and log only: no Cancel, no usage or counters. */
  readOnly?: boolean;
}

export function RunProgress({ runId, onFinished, title, linkToRunPage = false, readOnly = false }: RunProgressProps) {
  const { run, active, live, error } = useFollowedRun(runId);
  const events = useRunEvents(runId, active);
  const cancel = useCancelRun();
  const [confirmCancel, setConfirmCancel] = useState(false);

  // The last lines are written just before the run finishes: read the log once more, then stop.
  const wasActive = useRef(active);
  const refetchEvents = events.refetch;
  useEffect(() => {
    if (wasActive.current && !active && run !== undefined) {
      void refetchEvents();
      onFinished?.(run);
    }
    wasActive.current = active;
  }, [active, run, refetchEvents, onFinished]);

  if (run === undefined) {
    return (
      <Card withBorder padding="md" aria-busy={error === null}>
        {error ? (
          <Alert color="red" title="Could not load the run">
            {error instanceof ApiError ? error.detail : "Something went wrong."}
          </Alert>
        ) : (
          <Text size="sm" c="dimmed">
            Loading run #{runId}…
          </Text>
        )}
      </Card>
    );
  }

  const { done, total } = run.progress;
  const percent = progressPercent(run);
  const finishedOk = run.status === "succeeded";
  const outcome = runOutcome(run);
  const runPage = linkToRunPage ? paths.runPage(run.kind, run.id) : null;

  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Title order={2} size="h5">
              {title ?? `${humanize(run.kind)} run #${String(run.id)}`}
            </Title>
            <Badge color={outcome.color} aria-live="polite">
              {outcome.label}
            </Badge>
            <LiveIndicator state={live} />
          </Group>
          <Group gap="xs">
            {runPage !== null && (
              <Button size="xs" component={Link} to={runPage} variant={isRunActive(run.status) ? "subtle" : "filled"}>
                {isRunActive(run.status) ? "Open the run page" : "Open the report"}
              </Button>
            )}
            {isRunActive(run.status) && !readOnly && (
              <Button
                size="xs"
                color="red"
                variant="light"
                onClick={() => {
                  setConfirmCancel(true);
                }}
              >
                Cancel run
              </Button>
            )}
          </Group>
        </Group>

        <Stack gap={4} role="status" aria-label="Run progress">
          <Group justify="space-between">
            <Text size="sm">
              {run.stage ? `Stage: ${humanize(run.stage)}` : run.status === "queued" ? "Waiting for a worker…" : ""}
            </Text>
            <Text size="sm" c="dimmed">
              {done !== undefined && total !== undefined ? `${String(done)} / ${String(total)}` : ""}
            </Text>
          </Group>
          <Progress
            value={percent ?? (finishedOk ? 100 : isRunActive(run.status) ? 100 : 0)}
            animated={isRunActive(run.status)}
            striped={isRunActive(run.status) && percent === null}
            color={outcome.warning ? outcome.color : STATUS_COLOR[run.status]}
            aria-label="Progress"
          />
        </Stack>

        {!readOnly && (
          <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs">
            <Stat label="Waited" value={formatSeconds(run.wait_seconds)} />
            <Stat label="Duration" value={formatSeconds(run.duration_seconds)} />
            <Stat label="LLM calls" value={String(run.usage.calls)} />
            <Box>
              <Text size="xs" c="dimmed">
                Cost
              </Text>
              <CostText size="sm" fw={500} usd={run.usage.cost_usd} unpriced={run.usage.unpriced_calls} />
            </Box>
            <Stat
              label="Tokens"
              value={`${String(run.usage.prompt_tokens)} in / ${String(run.usage.completion_tokens)} out`}
            />
            {Object.entries(run.counters).map(([name, value]) => (
              <Stat key={name} label={humanize(name)} value={String(value)} />
            ))}
          </SimpleGrid>
        )}

        {outcome.warning && (
          <Alert color="yellow" title={outcome.warning.title}>
            {outcome.warning.text}
          </Alert>
        )}

        {run.status === "failed" && (
          <Alert color="red" title={run.error_type || "The run failed"}>
            {run.error_message || "No message was recorded."}
          </Alert>
        )}

        {events.isError ? (
          <Alert color="yellow" title="The log is not available">
            {events.error instanceof ApiError ? events.error.detail : "Could not read the run's log."}
          </Alert>
        ) : (
          <RunLog events={events.data ?? []} live={active} />
        )}
      </Stack>

      <ConfirmDialog
        opened={confirmCancel}
        title="Cancel this run?"
        confirmLabel="Cancel run"
        cancelLabel="Keep running"
        loading={cancel.isPending}
        error={cancel.error}
        onClose={() => {
          setConfirmCancel(false);
        }}
        onConfirm={() => {
          cancel.mutate(runId, {
            onSuccess: () => {
              setConfirmCancel(false);
            },
          });
        }}
      >
        The run stops at its next step. What it has produced so far is kept.
      </ConfirmDialog>
    </Card>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <Box>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500}>
        {value}
      </Text>
    </Box>
  );
}
