/**
 * A project's "Transcripts" page (issue 38): upload production conversations with a progress bar (each chunk is
 * masked by the server before it is stored), see the masking rules and a sample of what was stored, the real
 * users' measures, build TRACER's model from the conversations, calibrate a simulated user, and compare simulated
 * with real users on a chart (the fidelity report). Owner-only: the server answers 404 to anyone else.
 */
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Progress,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useEffect, useState } from "react";
import { Link, useParams } from "react-router";
import { useProfiles } from "../../api/workspace/profiles";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/runs/project-runs";
import { resultOf } from "../../api/runs/runs";
import {
  useCalibrate,
  useFidelity,
  useTranscripts,
  useUploadTranscript,
  type TranscriptsOverview,
  type TranscriptUpload,
  type UploadProgress,
} from "../../api/workspace/transcripts";
import { FileDropZone } from "../../components/FileDropZone";
import { PageHeader } from "../../components/PageHeader";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { QueryStates } from "../../components/StateViews";
import { useFollowedRun } from "../../components/use-followed-run";
import { paths } from "../../lib/paths";
import { FidelityChart } from "./FidelityChart";

const EXTENSIONS = [".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".txt"] as const;
const MAX_BYTES = 200 * 1024 * 1024;
const FIDELITY_PROFILES = 3;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

function UploadSection({ projectId }: { projectId: number }) {
  const upload = useUploadTranscript(projectId);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [rejected, setRejected] = useState<string[]>([]);
  const done: TranscriptUpload | undefined = upload.data ?? progress?.upload;
  const percent = progress ? Math.round((100 * progress.sent) / Math.max(1, progress.size)) : 0;
  return (
    <Section title="Upload transcripts">
      <Text size="sm">
        JSON lines, CSV, Rasa tracker events or a Botium convo file, up to 50,000 conversations. The file is sent in
        chunks; each chunk is masked before anything is stored.
      </Text>
      <FileDropZone
        extensions={EXTENSIONS}
        maxBytes={MAX_BYTES}
        buttonLabel="Choose a transcript file"
        hint="A malformed record is reported with its line number; the rest is kept."
        loading={upload.isPending}
        onReject={setRejected}
        onFiles={(files) => {
          setRejected([]);
          setProgress(null);
          const file = files[0];
          if (file !== undefined) upload.mutate({ file, onProgress: setProgress });
        }}
      />
      {rejected.length > 0 && (
        <Alert color="red" title="Not uploaded">
          {rejected.join("; ")}
        </Alert>
      )}
      {(upload.isPending || progress) && (
        <Stack gap={4}>
          <Progress value={percent} aria-label="Upload progress" animated={upload.isPending} />
          <Text size="sm" role="status">
            {percent}% sent · {progress?.upload.conversations ?? 0} conversations imported
            {upload.isSuccess ? " · done" : ""}
          </Text>
        </Stack>
      )}
      <ServerErrorAlert error={upload.error} title="The upload stopped" />
      {done && done.problems.length > 0 && (
        <Table withTableBorder fz="sm" aria-label="Problems in the file">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Line</Table.Th>
              <Table.Th>Problem</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {done.problems.slice(0, 50).map((problem, index) => (
              <Table.Tr key={`${String(problem.line)}-${String(index)}`}>
                <Table.Td>{problem.line}</Table.Td>
                <Table.Td>
                  <Badge size="xs" color={problem.severity === "error" ? "red" : "yellow"} mr="xs">
                    {problem.severity}
                  </Badge>
                  {problem.message}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Section>
  );
}

function MaskingSection({ overview }: { overview: TranscriptsOverview }) {
  return (
    <Section title="Masking preview">
      <Table withTableBorder fz="sm" aria-label="Masking rules">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Placeholder</Table.Th>
            <Table.Th>What is masked</Table.Th>
            <Table.Th>Example, as stored</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {overview.rules.map((rule) => (
            <Table.Tr key={rule.kind}>
              <Table.Td>
                <code>{rule.placeholder}</code>
              </Table.Td>
              <Table.Td>{rule.what}</Table.Td>
              <Table.Td>{rule.masked[0]?.masked}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Title order={3} size="h6">
        Sample of the stored conversations
      </Title>
      {overview.sample.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing imported yet.
        </Text>
      ) : (
        <Stack gap="xs" aria-label="Masked conversations">
          {overview.sample.map((conversation) => (
            <Paper key={conversation.id} withBorder p="xs" data-testid="masked-conversation">
              {conversation.turns.map((turn, index) => (
                <Text key={index} size="sm">
                  <Text span fw={600}>
                    {turn.role === "user" ? "User" : "Bot"}:
                  </Text>{" "}
                  {turn.text}
                </Text>
              ))}
            </Paper>
          ))}
        </Stack>
      )}
    </Section>
  );
}

function MeasuresSection({ overview }: { overview: TranscriptsOverview }) {
  const measures = overview.measures;
  if (measures === null) return null;
  const rows: [string, number][] = [
    ["Conversations", measures.conversations],
    ["Words per user message", measures.words_per_message],
    ["User turns per conversation", measures.user_turns],
    ["Questions ignored (share)", measures.ignored_question],
    ["Self-corrections (share of messages)", measures.correction],
    ["Changes of mind (share of messages)", measures.change_of_mind],
    ["Fallbacks in a row before leaving", measures.leave_after],
  ];
  return (
    <Section title="How real users behave">
      <Table withTableBorder fz="sm" aria-label="Measures of real users">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Td>{label}</Table.Td>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Section>
  );
}

function RunLink({ runId, label }: { runId: number | null; label: string }) {
  const { run, active } = useFollowedRun(runId);
  if (runId === null) return null;
  const page = paths.runPage("tracer", runId);
  return (
    <Text size="sm" role="status">
      {label}: {run?.status ?? "queued"}
      {active ? "…" : ""}{" "}
      {page && run?.kind === "tracer" && (
        <Anchor component={Link} to={page} size="sm">
          open the run
        </Anchor>
      )}
    </Text>
  );
}

function ModelSection({ projectId, overview }: { projectId: number; overview: TranscriptsOverview }) {
  const start = useStartProjectRun(projectId);
  const calibrate = useCalibrate(projectId);
  const profiles = useProfiles(projectId);
  const [sample, setSample] = useState<number | string>(40);
  const [tracerRun, setTracerRun] = useState<number | null>(null);
  const [fidelityRuns, setFidelityRuns] = useState<number[]>([]);
  const tracer = useFollowedRun(tracerRun);
  const built = tracer.run?.status === "succeeded";
  const model = built && tracer.run ? resultOf(tracer.run, "tracer") : null;
  const refetchProfiles = profiles.refetch;
  useEffect(() => {
    if (built) void refetchProfiles(); // the run filed its profiles: the fidelity check runs them
  }, [built, refetchProfiles]);
  const empty = overview.conversations === 0;
  const calibrated = calibrate.data !== undefined || overview.calibrated_personality !== null;
  const runnable = (profiles.data ?? []).filter((profile) => profile.valid).slice(0, FIDELITY_PROFILES);

  const checkFidelity = async () => {
    const ids = runnable.map((profile) => profile.id);
    const plain = await start.mutateAsync({ kind: "sensei", profiles: ids, concurrency: 2 });
    const withUser = await start.mutateAsync({
      kind: "sensei",
      profiles: ids,
      concurrency: 2,
      seed: (plain.params as { seed?: number }).seed ?? null,
      calibrated_user: "calibrated-user",
    });
    setFidelityRuns([plain.id, withUser.id]);
  };

  return (
    <Section title="From transcripts to tests">
      <Group align="flex-end">
        <NumberInput
          label="Conversations to read"
          min={1}
          max={500}
          value={sample}
          onChange={setSample}
          w={200}
          disabled={empty}
        />
        <Button
          disabled={empty}
          loading={start.isPending && tracerRun === null}
          onClick={() => {
            start.mutate(
              { kind: "tracer", source: "transcripts", sample: Number(sample) || 40, concurrency: DEFAULT_CONCURRENCY },
              {
                onSuccess: (run) => {
                  setTracerRun(run.id);
                },
              },
            );
          }}
        >
          Build the model from transcripts
        </Button>
        <Button
          variant="light"
          disabled={empty}
          loading={calibrate.isPending}
          onClick={() => {
            calibrate.mutate();
          }}
        >
          Calibrate a simulated user
        </Button>
        <Button
          variant="default"
          disabled={!calibrated || runnable.length === 0}
          loading={start.isPending && tracerRun !== null}
          onClick={() => void checkFidelity()}
        >
          Check fidelity
        </Button>
      </Group>
      <RunLink runId={tracerRun} label="Model from transcripts" />
      {model && (
        <Text size="sm">
          {String(model.functionalities)} functionalities and {String(model.valid_profiles)} valid profiles from{" "}
          {String(model.transcripts?.sampled ?? 0)} conversations.
        </Text>
      )}
      {calibrate.data && (
        <Text size="sm" role="status">
          Personality <code>{calibrate.data.name}</code> calibrated from {calibrate.data.measures.conversations}{" "}
          conversations
          {calibrate.data.leave_after > 0
            ? `: leaves after ${String(calibrate.data.leave_after)} fallbacks in a row.`
            : "."}
        </Text>
      )}
      {fidelityRuns.map((id, index) => (
        <RunLink key={id} runId={id} label={index === 0 ? "Simulated users" : "Calibrated simulated users"} />
      ))}
      <ServerErrorAlert error={start.error ?? calibrate.error} title="Could not start" />
    </Section>
  );
}

function FidelitySection({ projectId, overview }: { projectId: number; overview: TranscriptsOverview }) {
  const report = useFidelity(projectId, overview.conversations > 0 ? 5000 : false);
  if (overview.conversations === 0 || report.data === undefined) return null;
  return (
    <Section title="Fidelity report">
      <FidelityChart report={report.data} />
    </Section>
  );
}

export function TranscriptsPage() {
  const projectId = Number(useParams().projectId);
  const overview = useTranscripts(projectId);
  if (!overview.isSuccess) {
    const notFound = { what: "project", backTo: paths.projects, backLabel: "Back to your projects" };
    return <QueryStates query={overview} what="the transcripts" notFound={notFound} />;
  }
  return (
    <Stack gap="lg" maw={1200}>
      <PageHeader
        title="Transcripts"
        description={`${String(overview.data.conversations)} production conversations imported, masked before they were stored.`}
        actions={
          <Button variant="default" component={Link} to={paths.testCenter(projectId)}>
            Back to the test center
          </Button>
        }
      />
      <UploadSection projectId={projectId} />
      <MaskingSection overview={overview.data} />
      <MeasuresSection overview={overview.data} />
      <ModelSection projectId={projectId} overview={overview.data} />
      <FidelitySection projectId={projectId} overview={overview.data} />
    </Stack>
  );
}
