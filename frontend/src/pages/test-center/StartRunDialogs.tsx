/** The dialogs that start a project's long runs: "Explore with TRACER" and "Run SENSEI". */
import { List, NumberInput, Text } from "@mantine/core";
import { useState } from "react";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/runs/project-runs";
import type { Profile } from "../../api/workspace/profiles";
import type { Project } from "../../api/workspace/projects";
import type { Run } from "../../api/runs/runs";
import { paths } from "../../lib/paths";
import { StartRunDialog, StartRunForm } from "../../components/StartRunDialog";

const SESSIONS = { min: 1, max: 50, initial: 5 };
const TURNS = { min: 2, max: 30, initial: 8 };
const CONCURRENCY = { min: 1, max: 16 };
/** Runs of each planned conversation (the server accepts 1–10 for SENSEI, 1 when omitted). */
const REPEATS = { min: 1, max: 10, initial: 1 };

function clampInt(value: number | string, min: number, max: number, fallback: number): number {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
}

/** What a project lacks before its long runs can start (the server refuses them without it), or null. */
export function runSetupProblem(project: Pick<Project, "llm_key" | "exploration_model">): string | null {
  if (project.llm_key === null || project.llm_key === undefined)
    return "This project has no LLM key, so TRACER and SENSEI have no LLM to talk with.";
  if (!project.exploration_model?.trim())
    return "This project has no exploration model: TRACER explores with it, and SENSEI uses it when no other model is chosen.";
  return null;
}

function projectFix(project: Pick<Project, "id" | "llm_key" | "exploration_model">) {
  return {
    problem: runSetupProblem(project),
    label: "Open the project's settings",
    to: paths.editProject(project.id),
  };
}

interface DialogProps {
  project: Pick<Project, "id" | "llm_key" | "exploration_model">;
  opened: boolean;
  onClose: () => void;
  /** The run this dialog started (the page keeps following it after the dialog closes). */
  runId: number | null;
  onStarted: (run: Run) => void;
  onFinished?: (run: Run) => void;
}

export function TracerDialog({ project, opened, onClose, runId, onStarted, onFinished }: DialogProps) {
  const start = useStartProjectRun(project.id);
  const [sessions, setSessions] = useState<number | string>(SESSIONS.initial);
  const [turns, setTurns] = useState<number | string>(TURNS.initial);
  const close = () => {
    start.reset();
    onClose();
  };
  return (
    <StartRunDialog
      title="Explore with TRACER"
      opened={opened}
      onClose={close}
      following={{ runId, title: "TRACER exploration", onFinished }}
    >
      <StartRunForm
        start={start}
        errorTitle="Could not start TRACER"
        submitLabel="Start exploring"
        fix={projectFix(project)}
        onCancel={close}
        onSubmit={() => {
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
        <Text size="sm">
          TRACER talks to the chatbot to find out what it can do, then writes SENSEI profiles for it. More sessions and
          turns find more, and cost more.
        </Text>
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
      </StartRunForm>
    </StartRunDialog>
  );
}

export function SenseiDialog({
  project,
  opened,
  onClose,
  runId,
  onStarted,
  onFinished,
  profiles,
}: DialogProps & { profiles: Profile[] }) {
  const start = useStartProjectRun(project.id);
  const [concurrency, setConcurrency] = useState<number | string>(DEFAULT_CONCURRENCY);
  const [seed, setSeed] = useState<number | string>("");
  const [repeats, setRepeats] = useState<number | string>(REPEATS.initial);
  const close = () => {
    start.reset();
    onClose();
  };
  return (
    <StartRunDialog
      title="Run SENSEI"
      opened={opened}
      onClose={close}
      following={{ runId, title: "SENSEI run", onFinished }}
    >
      <StartRunForm
        start={start}
        errorTitle="Could not start SENSEI"
        submitLabel="Start SENSEI"
        canSubmit={profiles.length > 0}
        fix={projectFix(project)}
        onCancel={close}
        onSubmit={() => {
          const seedNumber = seed === "" ? null : Math.round(Number(seed));
          start.mutate(
            {
              kind: "sensei",
              profiles: profiles.map((p) => p.id),
              concurrency: clampInt(concurrency, CONCURRENCY.min, CONCURRENCY.max, DEFAULT_CONCURRENCY),
              repeats: clampInt(repeats, REPEATS.min, REPEATS.max, REPEATS.initial),
              ...(seedNumber === null || Number.isNaN(seedNumber) ? {} : { seed: seedNumber }),
            },
            { onSuccess: onStarted },
          );
        }}
      >
        <Text size="sm">SENSEI simulates users with these profiles against the chatbot:</Text>
        <List size="sm" aria-label="Selected profiles">
          {profiles.map((profile) => (
            <List.Item key={profile.id}>{profile.name}</List.Item>
          ))}
        </List>
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
          label="Repeats"
          description={`Runs of each conversation with other simulated-user seeds (${String(REPEATS.min)}–${String(REPEATS.max)}). With 2 or more, a conversation whose verdict changes between runs is marked flaky; each repeat costs as much as the first.`}
          min={REPEATS.min}
          max={REPEATS.max}
          allowDecimal={false}
          clampBehavior="strict"
          value={repeats}
          onChange={setRepeats}
        />
        <NumberInput
          label="Seed"
          description="Optional: the same seed picks the same variable values again."
          allowDecimal={false}
          value={seed}
          onChange={setSeed}
        />
      </StartRunForm>
    </StartRunDialog>
  );
}
