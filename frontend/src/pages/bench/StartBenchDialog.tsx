/**
 * "Start a bench": a project on a built-in reference bot, TRACER's size, SENSEI's repeats (on the original and on
 * each mutant), the
 * mutants to draw, concurrency and seed. The server's field messages show under the fields; its `kind` message
 * (the project cannot run a bench: not a built-in bot, no LLM key or model) shows under the project.
 */
import { Alert, Anchor, Group, MultiSelect, NumberInput, Select, SimpleGrid, Stack, Text } from "@mantine/core";
import { isInRange, isNotEmpty, useForm } from "@mantine/form";
import { Link } from "react-router";
import { useAllConnectors } from "../../api/workspace/connectors";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { useAllProjects } from "../../api/workspace/projects";
import type { Run } from "../../api/runs/runs";
import { BENCH_LIMITS, BENCH_OPERATORS, benchBotOf, type MutationOperator, useStartBench } from "../../api/bench/runs-bench";
import { StartRunDialog, StartRunForm } from "../../components/StartRunDialog";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { paths } from "../../lib/paths";

interface BenchFormValues {
  project: string | null;
  sessions: number | string;
  turns: number | string;
  repeats: number | string;
  mutants_per_operator: number | string;
  operators: MutationOperator[];
  concurrency: number | string;
  seed: number | string;
}

/** Request fields the form shows messages under; `kind` goes under the project. */
const FORM_FIELDS = [
  "project",
  "sessions",
  "turns",
  "repeats",
  "mutants_per_operator",
  "operators",
  "concurrency",
  "seed",
] as const;
const SERVER_FIELDS = [...FORM_FIELDS, "kind"] as const;

const range = (limits: { min: number; max: number }) =>
  isInRange(limits, `A whole number from ${String(limits.min)} to ${String(limits.max)}.`);

function int(value: number | string): number {
  return Math.round(Number(value));
}

/**
 * Every SENSEI run of TRACER's profiles the bench may make: `repeats` on the original, on each mutant (same seeds:
 * kills are differential) and on the control (the original again, to measure kills by noise).
 */
function senseiRuns(values: BenchFormValues): { original: number; mutants: number; controls: number } | null {
  const repeats = Number(values.repeats);
  const perOperator = Number(values.mutants_per_operator);
  if (!Number.isFinite(repeats) || !Number.isFinite(perOperator) || values.repeats === "") return null;
  const operators = values.operators.length || BENCH_OPERATORS.length;
  return { original: repeats, mutants: operators * perOperator * repeats, controls: repeats };
}

interface ProjectChoice {
  value: string;
  label: string;
  disabled?: boolean;
}

/** The user's projects; those not on a built-in original bot are listed, disabled, with the reason. */
function useProjectChoices() {
  const projects = useAllProjects();
  const connectors = useAllConnectors();
  const choices: ProjectChoice[] = (projects.data ?? []).map((project) => {
    const bot = benchBotOf(connectors.data?.find((c) => c.id === project.connector));
    return bot === null
      ? { value: String(project.id), label: `${project.name} (not a built-in bot)`, disabled: true }
      : { value: String(project.id), label: `${project.name} — ${bot}` };
  });
  return {
    choices,
    isPending: projects.isPending || connectors.isPending,
    error: projects.error ?? connectors.error,
    refetch: () => {
      void projects.refetch();
      void connectors.refetch();
    },
  };
}

interface DialogCallbacks {
  onClose: () => void;
  onStarted: (run: Run) => void;
}

function BenchForm({ choices, onClose, onStarted }: DialogCallbacks & { choices: ProjectChoice[] }) {
  const start = useStartBench();
  const eligible = choices.filter((choice) => choice.disabled !== true);
  const form = useForm<BenchFormValues>({
    mode: "controlled",
    initialValues: {
      // The only project that can run a bench is chosen already.
      project: eligible.length === 1 ? (eligible[0]?.value ?? null) : null,
      sessions: BENCH_LIMITS.sessions.initial,
      turns: BENCH_LIMITS.turns.initial,
      repeats: BENCH_LIMITS.repeats.initial,
      mutants_per_operator: BENCH_LIMITS.mutantsPerOperator.initial,
      operators: [],
      concurrency: BENCH_LIMITS.concurrency.initial,
      seed: "",
    },
    validate: {
      project: isNotEmpty("Choose a project on a built-in bot."),
      sessions: range(BENCH_LIMITS.sessions),
      turns: range(BENCH_LIMITS.turns),
      repeats: range(BENCH_LIMITS.repeats),
      mutants_per_operator: range(BENCH_LIMITS.mutantsPerOperator),
      concurrency: range(BENCH_LIMITS.concurrency),
      seed: (value) => (value === "" || Number(value) >= 0 ? null : "The seed is a whole number, 0 or more."),
    },
  });
  const runs = senseiRuns(form.values);

  const handleSubmit = form.onSubmit((values) => {
    start.mutate(
      {
        projectId: Number(values.project),
        body: {
          kind: "bench",
          sessions: int(values.sessions),
          turns: int(values.turns),
          repeats: int(values.repeats),
          mutants_per_operator: int(values.mutants_per_operator),
          concurrency: int(values.concurrency),
          ...(values.operators.length > 0 ? { operators: values.operators } : {}),
          ...(values.seed === "" ? {} : { seed: int(values.seed) }),
        },
      },
      {
        onSuccess: onStarted,
        onError: (error) => {
          if (!(error instanceof ApiError)) return;
          const { kind, ...byField } = splitFieldErrors(error, SERVER_FIELDS).byField;
          form.setErrors({ ...byField, ...(kind === undefined ? {} : { project: kind }) });
        },
      },
    );
  });

  return (
    <StartRunForm
      label="Start a bench"
      start={start}
      errorTitle="Could not start the bench"
      formFields={SERVER_FIELDS}
      submitLabel="Start the bench"
      canSubmit={eligible.length > 0}
      onSubmit={handleSubmit}
      onCancel={onClose}
    >
      <Text size="sm">
        The bench measures how well Parley finds faults. TRACER explores a built-in reference bot whose ground truth is
        known, SENSEI plays TRACER&apos;s profiles against the original bot (false alarms) and against mutants with one
        fault each, and generated rules check every conversation. A mutant nobody notices is a gap in the tests.
      </Text>
      {eligible.length === 0 && (
        <Alert color="yellow" title="No project on a built-in bot">
          <Stack gap={4}>
            <Text size="sm">
              The bench needs a project with an LLM key whose connector has the technology demo and one of the reference
              bots (an original, not a mutant): its ground truth is what the figures are measured against.
            </Text>
            <Group gap="md">
              <Anchor component={Link} to={paths.newConnector} size="sm">
                Create a demo connector
              </Anchor>
              <Anchor component={Link} to={paths.newProject} size="sm">
                Create a project
              </Anchor>
            </Group>
          </Stack>
        </Alert>
      )}
      <Select
        label="Project"
        description="Only projects whose connector is a built-in reference bot (technology demo) can run the bench."
        placeholder={eligible.length === 0 ? "No project on a built-in bot" : "Choose a project"}
        data={choices}
        required
        searchable
        {...form.getInputProps("project")}
        data-autofocus
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <NumberInput
          label="TRACER sessions"
          description={`${String(BENCH_LIMITS.sessions.min)}–${String(BENCH_LIMITS.sessions.max)}`}
          min={BENCH_LIMITS.sessions.min}
          max={BENCH_LIMITS.sessions.max}
          allowDecimal={false}
          {...form.getInputProps("sessions")}
        />
        <NumberInput
          label="Turns per session"
          description={`${String(BENCH_LIMITS.turns.min)}–${String(BENCH_LIMITS.turns.max)}`}
          min={BENCH_LIMITS.turns.min}
          max={BENCH_LIMITS.turns.max}
          allowDecimal={false}
          {...form.getInputProps("turns")}
        />
        <NumberInput
          label="Repeats"
          description="SENSEI runs with the same seeds on the original and on each mutant: a kill needs a finding the original never showed."
          min={BENCH_LIMITS.repeats.min}
          max={BENCH_LIMITS.repeats.max}
          allowDecimal={false}
          {...form.getInputProps("repeats")}
        />
        <NumberInput
          label="Mutants per operator"
          description="Drawn at random (seeded); 0 runs no mutant."
          min={BENCH_LIMITS.mutantsPerOperator.min}
          max={BENCH_LIMITS.mutantsPerOperator.max}
          allowDecimal={false}
          {...form.getInputProps("mutants_per_operator")}
        />
      </SimpleGrid>
      <MultiSelect
        label="Mutation operators"
        description="Leave empty for all of them."
        placeholder={form.values.operators.length === 0 ? "All operators" : undefined}
        data={[...BENCH_OPERATORS]}
        searchable
        clearable
        {...form.getInputProps("operators")}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <NumberInput
          label="Parallel conversations"
          description={`${String(BENCH_LIMITS.concurrency.min)}–${String(BENCH_LIMITS.concurrency.max)}`}
          min={BENCH_LIMITS.concurrency.min}
          max={BENCH_LIMITS.concurrency.max}
          allowDecimal={false}
          {...form.getInputProps("concurrency")}
        />
        <NumberInput
          label="Seed"
          description="Optional: the same seed draws the same mutants."
          min={0}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps("seed")}
        />
      </SimpleGrid>
      {runs && (
        <Text size="sm" c="dimmed">
          {[
            `Up to ${String(runs.original + runs.mutants + runs.controls)} SENSEI runs of TRACER's profiles after one`,
            `exploration: ${String(runs.original)} on the original, at most ${String(runs.mutants)} on mutants`,
            `(fewer where an operator has fewer) and ${String(runs.controls)} on a control.`,
            "Every run costs LLM calls.",
          ].join(" ")}
        </Text>
      )}
    </StartRunForm>
  );
}

function BenchDialogBody({ onClose, onStarted }: DialogCallbacks) {
  const projects = useProjectChoices();
  if (projects.isPending) return <LoadingState label="Loading your projects" />;
  if (projects.error) {
    return <ErrorState error={projects.error} title="Could not load your projects" onRetry={projects.refetch} />;
  }
  return <BenchForm choices={projects.choices} onClose={onClose} onStarted={onStarted} />;
}

export function StartBenchDialog({ opened, onClose, onStarted }: DialogCallbacks & { opened: boolean }) {
  return (
    <StartRunDialog title="Start a bench" opened={opened} onClose={onClose} size="lg">
      <BenchDialogBody onClose={onClose} onStarted={onStarted} />
    </StartRunDialog>
  );
}
