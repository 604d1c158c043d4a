/**
 * One TRACER run: progress and log while it runs; then the report, the interactive workflow graph, the profiles
 * it generated, its exploration sessions as chat logs, and a diff of its model against another run.
 */
import {
  Accordion,
  Alert,
  Anchor,
  Badge,
  Code,
  Group,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { useArtefact } from "../../api/runs/artefacts";
import type { TranscriptTurn } from "../../api/runs/conversations";
import { useProfiles } from "../../api/workspace/profiles";
import { type RunEvent, useRunEvents } from "../../api/runs/project-runs";
import { isRunActive, resultOf, type Run } from "../../api/runs/runs";
import { useModelDiff, useProjectRuns } from "../../api/runs/runs-dashboard";
import { WorkflowGraph } from "../../components/graph/WorkflowGraph";
import { WorkflowTable } from "../../components/graph/WorkflowTable";
import { runOutcome } from "../../components/run-outcome";
import { RunWarnings } from "../../components/RunWarnings";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { ChatTurns } from "../../components/transcript/Transcript";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { formatCount, formatDate, sessionsTimesTurns } from "./format";
import { isMissingArtefact, ReportTab } from "./ReportTab";
import { RunHeader } from "./RunHeader";
import { RunLivePanel } from "./RunLivePanel";

/** The workflow model, drawn as a graph or laid out as a table (the same data), as the user toggles. */
function GraphTab({ runId }: { runId: number }) {
  const graph = useArtefact(runId, "graph");
  const [view, setView] = useState<"graph" | "table">("graph");
  if (graph.isPending) return <LoadingState label="Loading the graph" />;
  if (isMissingArtefact(graph.error)) return <Text c="dimmed">This run has no workflow graph.</Text>;
  if (graph.isError) return <ErrorState error={graph.error} title="Could not load the graph" />;
  return (
    <Stack gap="xs">
      <SegmentedControl
        aria-label="Show the workflow as"
        w="fit-content"
        value={view}
        onChange={(value) => {
          setView(value === "table" ? "table" : "graph");
        }}
        data={[
          { value: "graph", label: "Graph" },
          { value: "table", label: "Table" },
        ]}
      />
      {view === "graph" ? (
        <WorkflowGraph data={graph.data} filename={`tracer-run-${String(runId)}-graph`} />
      ) : (
        <WorkflowTable data={graph.data} />
      )}
    </Stack>
  );
}

function ProfilesTab({ run, mode }: { run: Run; mode: DashboardMode }) {
  const projectId = run.project ?? 0;
  const profiles = useProfiles(projectId);
  if (profiles.isPending) return <LoadingState label="Loading the profiles" />;
  if (profiles.isError) return <ErrorState error={profiles.error} title="Could not load the profiles" />;
  const generated = profiles.data.filter((profile) => profile.source_run === run.id);
  const editable = mode === "owner" && run.is_owner;
  if (generated.length === 0) return <Text c="dimmed">This run generated no profile.</Text>;
  return (
    <Stack gap="sm">
      {editable && (
        <Text size="sm" c="dimmed">
          {"TRACER's profiles are kept as generated; editing one saves your copy in the "}
          <Anchor component={Link} to={dashboardPaths.testCenter(projectId)}>
            test center
          </Anchor>
          .
        </Text>
      )}
      <Accordion variant="separated" multiple>
        {generated.map((profile) => (
          <Accordion.Item key={profile.id} value={String(profile.id)}>
            <Accordion.Control>
              <Group gap="xs">
                <Text fw={500}>{profile.name}</Text>
                <Badge color={profile.valid ? "teal" : "red"} variant="light">
                  {profile.valid ? "valid" : "invalid"}
                </Badge>
              </Group>
            </Accordion.Control>
            <Accordion.Panel>
              <Stack gap="xs">
                {editable && (
                  <Anchor component={Link} to={dashboardPaths.profile(projectId, profile.id)} size="sm">
                    {`Open ${profile.name} in the editor`}
                  </Anchor>
                )}
                <Code block tabIndex={0} style={{ whiteSpace: "pre-wrap" }}>
                  {profile.text}
                </Code>
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        ))}
      </Accordion>
    </Stack>
  );
}

function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

/** TRACER's `message` events, grouped by exploration session. */
export function sessionsFromEvents(events: RunEvent[]): [string, TranscriptTurn[]][] {
  const sessions = new Map<string, TranscriptTurn[]>();
  for (const event of events) {
    if (event.type !== "message") continue;
    const session = text(event.data.session) || "?";
    const turn: TranscriptTurn = {
      role: event.data.role === "chatbot" || event.data.role === "bot" ? "bot" : "user",
      text: text(event.data.text),
      buttons: [],
      at_s: 0,
      latency_s: null,
    };
    sessions.set(session, [...(sessions.get(session) ?? []), turn]);
  }
  return [...sessions.entries()];
}

function SessionsTab({ run }: { run: Run }) {
  const events = useRunEvents(run.id, isRunActive(run.status));
  if (events.isPending) return <LoadingState label="Loading the conversations" />;
  if (events.isError) return <ErrorState error={events.error} title="Could not load the conversations" />;
  const sessions = sessionsFromEvents(events.data);
  if (sessions.length === 0) return <Text c="dimmed">No conversation yet.</Text>;
  return (
    <Accordion variant="separated" multiple defaultValue={[sessions[0]?.[0] ?? ""]}>
      {sessions.map(([session, turns]) => (
        <Accordion.Item key={session} value={session}>
          <Accordion.Control>{`Session ${session} (${counted(turns.length, "message")})`}</Accordion.Control>
          <Accordion.Panel>
            <ChatTurns turns={turns} label={`Session ${session}`} />
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}

function DiffTab({ run }: { run: Run }) {
  const projectId = run.project ?? 0;
  const runs = useProjectRuns(projectId, "tracer");
  const [other, setOther] = useState<string | null>(null);
  const otherId = other === null ? null : Number(other);
  const diff = useModelDiff(projectId, otherId ?? 0, otherId);
  const choices = (runs.data ?? [])
    .filter((candidate) => candidate.id !== run.id && candidate.status === "succeeded")
    .map((candidate) => ({
      value: String(candidate.id),
      label: `Run #${String(candidate.id)} — ${formatDate(candidate.created_at)}`,
    }));

  return (
    <Stack gap="sm">
      <Select
        label="Compare with"
        description="Another finished TRACER run of this project: what this run found that it did not, and back."
        placeholder={runs.isPending ? "Loading runs…" : choices.length === 0 ? "No other finished run" : "Pick a run"}
        data={choices}
        value={other}
        onChange={setOther}
        disabled={choices.length === 0}
        maw={420}
      />
      {diff.isFetching && <LoadingState label="Comparing" />}
      {diff.isError && <ErrorState error={diff.error} title="Could not compare the runs" />}
      {diff.data && otherId !== null && (
        <Stack gap="xs" aria-label="Model differences">
          <Text size="sm">
            {`From run #${String(otherId)} to this run: ${String(diff.data.added.length)} added, ${String(
              diff.data.removed.length,
            )} removed, ${String(diff.data.changed.length)} changed, ${String(diff.data.unchanged)} unchanged.`}
          </Text>
          <Group gap={4}>
            {diff.data.added.map((name) => (
              <Badge key={name} color="teal" variant="light" tt="none">
                {`+ ${name}`}
              </Badge>
            ))}
            {diff.data.removed.map((name) => (
              <Badge key={name} color="red" variant="light" tt="none">
                {`− ${name}`}
              </Badge>
            ))}
          </Group>
          {diff.data.changed.length > 0 && (
            <Table withTableBorder fz="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Functionality</Table.Th>
                  <Table.Th>{`Run #${String(otherId)}`}</Table.Th>
                  <Table.Th>This run</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {diff.data.changed.map((change) => (
                  <Table.Tr key={change.name}>
                    <Table.Td ff="monospace">{change.name}</Table.Td>
                    <Table.Td>
                      <Code block tabIndex={0}>
                        {JSON.stringify(change.before, null, 1)}
                      </Code>
                    </Table.Td>
                    <Table.Td>
                      <Code block tabIndex={0}>
                        {JSON.stringify(change.after, null, 1)}
                      </Code>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
    </Stack>
  );
}

export function TracerRunView({ run, mode }: { run: Run; mode: DashboardMode }) {
  const result = resultOf(run, "tracer");
  const outcome = runOutcome(run);
  const active = isRunActive(run.status);
  const finished = run.status === "succeeded" || (run.status === "failed" && result !== null);
  const [tab, setTab] = useState<string | null>(finished ? "report" : "progress");

  return (
    <Stack gap="md">
      <RunHeader
        run={run}
        mode={mode}
        title={`TRACER run #${String(run.id)}`}
        backTo={mode === "public" && run.project ? dashboardPaths.publicProject(run.project) : dashboardPaths.tracer}
        facts={[
          { label: "Sessions × turns", value: sessionsTimesTurns(run.params) },
          { label: "Functionalities", value: formatCount(result?.functionalities) },
          {
            label: "Profiles",
            value: result ? `${String(result.valid_profiles)} valid of ${String(result.profiles)}` : "—",
          },
        ]}
      />
      {outcome.warning && (
        <Alert color="yellow" title={outcome.warning.title} role="alert">
          {outcome.warning.text}
          {mode === "owner" && run.project !== null && (
            <>
              {" "}
              <Anchor component={Link} to={dashboardPaths.testCenter(run.project)}>
                Back to the test center
              </Anchor>
            </>
          )}
        </Alert>
      )}
      <RunWarnings warnings={result?.warnings ?? []} />
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="progress">{active ? "Progress" : "Log"}</Tabs.Tab>
          <Tabs.Tab value="report" disabled={active}>
            Report
          </Tabs.Tab>
          <Tabs.Tab value="graph" disabled={active}>
            Graph
          </Tabs.Tab>
          <Tabs.Tab value="profiles" disabled={active}>
            Profiles
          </Tabs.Tab>
          <Tabs.Tab value="sessions">Conversations</Tabs.Tab>
          <Tabs.Tab value="diff" disabled={active}>
            Diff
          </Tabs.Tab>
        </Tabs.List>
        <Stack pt="md">
          <Tabs.Panel value="progress">
            <RunLivePanel run={run} readOnly={mode === "public"} />
          </Tabs.Panel>
          <Tabs.Panel value="report">
            <ReportTab runId={run.id} />
          </Tabs.Panel>
          <Tabs.Panel value="graph">
            <GraphTab runId={run.id} />
          </Tabs.Panel>
          <Tabs.Panel value="profiles">
            <ProfilesTab run={run} mode={mode} />
          </Tabs.Panel>
          <Tabs.Panel value="sessions">
            <Title order={2} size="h5" mb="xs">
              Exploration sessions
            </Title>
            <SessionsTab run={run} />
          </Tabs.Panel>
          <Tabs.Panel value="diff">
            <DiffTab run={run} />
          </Tabs.Panel>
        </Stack>
      </Tabs>
    </Stack>
  );
}
