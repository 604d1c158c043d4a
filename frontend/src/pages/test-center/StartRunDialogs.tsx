/** The dialogs that start a project's long runs: "Explore with TRACER" and "Run SENSEI". */
import { Button, Group, List, Modal, NumberInput, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/project-runs";
import type { Profile } from "../../api/profiles";
import type { Run } from "../../api/runs";
import { RunProgress } from "../../components/RunProgress";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";

const SESSIONS = { min: 1, max: 50, initial: 5 };
const TURNS = { min: 2, max: 30, initial: 8 };
const CONCURRENCY = { min: 1, max: 16 };

function clampInt(value: number | string, min: number, max: number, fallback: number): number {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
}

interface DialogProps {
  projectId: number;
  opened: boolean;
  onClose: () => void;
  /** The run this dialog started (the page keeps following it after the dialog closes). */
  runId: number | null;
  onStarted: (run: Run) => void;
  onFinished?: (run: Run) => void;
}

export function TracerDialog({ projectId, opened, onClose, runId, onStarted, onFinished }: DialogProps) {
  const start = useStartProjectRun(projectId);
  const [sessions, setSessions] = useState<number | string>(SESSIONS.initial);
  const [turns, setTurns] = useState<number | string>(TURNS.initial);
  const close = () => {
    start.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Explore with TRACER" size={runId === null ? "md" : "xl"}>
      {runId === null ? (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            start.mutate(
              {
                kind: "tracer",
                sessions: clampInt(sessions, SESSIONS.min, SESSIONS.max, SESSIONS.initial),
                turns: clampInt(turns, TURNS.min, TURNS.max, TURNS.initial),
                concurrency: DEFAULT_CONCURRENCY,
              },
              { onSuccess: onStarted },
            );
          }}
        >
          <Stack gap="sm">
            <Text size="sm">
              TRACER talks to the chatbot to find out what it can do, then writes SENSEI profiles for it. More sessions
              and turns find more, and cost more.
            </Text>
            <ServerErrorAlert error={start.error} title="Could not start TRACER" />
            <NumberInput
              label="Sessions"
              description={`Separate conversations (${String(SESSIONS.min)}–${String(SESSIONS.max)}).`}
              min={SESSIONS.min}
              max={SESSIONS.max}
              allowDecimal={false}
              clampBehavior="strict"
              value={sessions}
              onChange={setSessions}
              data-autofocus
            />
            <NumberInput
              label="Turns per session"
              description={`Messages TRACER sends in each (${String(TURNS.min)}–${String(TURNS.max)}).`}
              min={TURNS.min}
              max={TURNS.max}
              allowDecimal={false}
              clampBehavior="strict"
              value={turns}
              onChange={setTurns}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={start.isPending}>
                Start exploring
              </Button>
            </Group>
          </Stack>
        </form>
      ) : (
        <Stack gap="sm">
          <RunProgress runId={runId} onFinished={onFinished} title="TRACER exploration" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Close (the run goes on)
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

export function SenseiDialog({
  projectId,
  opened,
  onClose,
  runId,
  onStarted,
  onFinished,
  profiles,
}: DialogProps & { profiles: Profile[] }) {
  const start = useStartProjectRun(projectId);
  const [concurrency, setConcurrency] = useState<number | string>(DEFAULT_CONCURRENCY);
  const [seed, setSeed] = useState<number | string>("");
  const close = () => {
    start.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Run SENSEI" size={runId === null ? "md" : "xl"}>
      {runId === null ? (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const seedNumber = seed === "" ? null : Math.round(Number(seed));
            start.mutate(
              {
                kind: "sensei",
                profiles: profiles.map((p) => p.id),
                concurrency: clampInt(concurrency, CONCURRENCY.min, CONCURRENCY.max, DEFAULT_CONCURRENCY),
                ...(seedNumber === null || Number.isNaN(seedNumber) ? {} : { seed: seedNumber }),
              },
              { onSuccess: onStarted },
            );
          }}
        >
          <Stack gap="sm">
            <Text size="sm">SENSEI simulates users with these profiles against the chatbot:</Text>
            <List size="sm" aria-label="Selected profiles">
              {profiles.map((profile) => (
                <List.Item key={profile.id}>{profile.name}</List.Item>
              ))}
            </List>
            <ServerErrorAlert error={start.error} title="Could not start SENSEI" />
            <NumberInput
              label="Parallel conversations"
              description={`${String(CONCURRENCY.min)}–${String(CONCURRENCY.max)}.`}
              min={CONCURRENCY.min}
              max={CONCURRENCY.max}
              allowDecimal={false}
              clampBehavior="strict"
              value={concurrency}
              onChange={setConcurrency}
            />
            <NumberInput
              label="Seed"
              description="Optional: the same seed picks the same variable values again."
              allowDecimal={false}
              value={seed}
              onChange={setSeed}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={start.isPending} disabled={profiles.length === 0}>
                Start SENSEI
              </Button>
            </Group>
          </Stack>
        </form>
      ) : (
        <Stack gap="sm">
          <RunProgress runId={runId} onFinished={onFinished} title="SENSEI run" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Close (the run goes on)
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
