/**
 * The coverage map of a SENSEI run: its conversations laid over a TRACER run's graph (the project's latest, or
 * `?tracer=`). Each functionality carries a badge — how many conversations reached it and how many failed there,
 * "never reached", or "not decidable" — in the graph and in a table (the same figures, readable without it); the
 * functionalities never reached are listed, and the owner drafts SENSEI profiles for the ones they choose (a
 * short run; the drafts land in the project's test center, to edit before running them).
 *
 * "Reached" is decided by words shared with the chatbot's replies, an approximation the page states.
 */
import { Alert, Anchor, Badge, Button, Checkbox, Group, List, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { type CoverageNode, coverageMark, useCoverage, useDraftProfiles } from "../../api/runs/coverage";
import { ApiError } from "../../api/errors";
import { resultOf, useRun } from "../../api/runs/runs";
import { WorkflowGraph } from "../../components/graph/WorkflowGraph";
import { PageHeader } from "../../components/PageHeader";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { useFollowedRun } from "../../components/use-followed-run";
import { paths } from "../../lib/paths";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "../dashboards/dashboard-paths";

function positiveInt(value: string | null | undefined): number | null {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : null;
}

function CoverageTable({ nodes, decided }: { nodes: CoverageNode[]; decided: boolean }) {
  return (
    <Table striped withTableBorder aria-label="Coverage by functionality">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Functionality</Table.Th>
          <Table.Th>Reached</Table.Th>
          <Table.Th>Failed there</Table.Th>
          <Table.Th>Why reached (first replies, shared words)</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {nodes.map((node) => {
          const mark = coverageMark(node, decided);
          return (
            <Table.Tr key={node.name}>
              <Table.Td>
                <Text size="sm" fw={500}>
                  {node.label}
                </Text>
                <Text size="xs" c="dimmed">
                  {node.description}
                </Text>
              </Table.Td>
              <Table.Td>
                {node.decidable && decided ? (
                  String(node.reached)
                ) : (
                  <Badge color={mark.color} variant="light">
                    {mark.text}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{node.decidable && decided ? String(node.failed) : "—"}</Table.Td>
              <Table.Td>
                <Text size="xs">
                  {node.evidence
                    .map((e) => `${e.conversation} turn ${String(e.turn + 1)}: ${e.words.join(", ")}`)
                    .join("; ")}
                </Text>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function DraftResult({ runId, projectId }: { runId: number; projectId: number }) {
  const { run, active, error } = useFollowedRun(runId);
  if (error) return <ServerErrorAlert error={error} title="Could not follow the drafting run" />;
  if (active || run === undefined)
    return (
      <div role="status" aria-label="Drafting">
        <Alert color="blue">Drafting profiles with the project's LLM…</Alert>
      </div>
    );
  if (run.status !== "succeeded")
    return (
      <Alert color="red" role="alert" title="The drafting run did not finish">
        {run.error_message || run.status}
      </Alert>
    );
  const drafts = resultOf(run, "profile_draft") ?? { profiles: [], warnings: [] };
  return (
    <div role="status" aria-label="Drafted profiles">
      <Alert color="teal" title={`${String(drafts.profiles.length)} profile(s) drafted`}>
        <List size="sm">
          {drafts.profiles.map((profile) => (
            <List.Item key={profile.id}>
              <Anchor component={Link} to={paths.profile(projectId, profile.id)}>
                {profile.name}
              </Anchor>
              {profile.valid ? "" : " (invalid: fix it before running)"}
            </List.Item>
          ))}
        </List>
        {drafts.warnings.map((warning) => (
          <Text key={warning} size="xs" c="dimmed">
            {warning}
          </Text>
        ))}
        <Text size="sm" mt="xs">
          They are in the{" "}
          <Anchor component={Link} to={paths.testCenter(projectId)}>
            test center
          </Anchor>
          : read and edit them before running SENSEI with them.
        </Text>
      </Alert>
    </div>
  );
}

function Unreached({
  runId,
  tracerRun,
  nodes,
  canDraft,
  projectId,
}: {
  runId: number;
  tracerRun: number;
  nodes: CoverageNode[];
  canDraft: boolean;
  projectId: number | null;
}) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [draftRun, setDraftRun] = useState<number | null>(null);
  const draft = useDraftProfiles(runId);
  return (
    <Paper withBorder p="sm" role="region" aria-label="Never reached">
      <Title order={2} size="h5" mb="xs">
        {`Never reached (${String(nodes.length)})`}
      </Title>
      {nodes.length === 0 ? (
        <Text size="sm" c="dimmed">
          Every functionality whose reach can be decided was reached by at least one conversation.
        </Text>
      ) : (
        <Stack gap="xs">
          {canDraft ? (
            <Checkbox.Group
              value={chosen}
              onChange={setChosen}
              label="Choose the functionalities to draft profiles for"
            >
              <Stack gap={4} mt={4}>
                {nodes.map((node) => (
                  <Checkbox
                    key={node.name}
                    value={node.name}
                    label={node.label}
                    description={node.description || undefined}
                  />
                ))}
              </Stack>
            </Checkbox.Group>
          ) : (
            <List size="sm">
              {nodes.map((node) => (
                <List.Item key={node.name}>{node.label}</List.Item>
              ))}
            </List>
          )}
          {canDraft && projectId !== null && (
            <Group>
              <Button
                disabled={chosen.length === 0}
                loading={draft.isPending}
                onClick={() => {
                  draft.mutate(
                    { functionalities: chosen, tracer: tracerRun },
                    {
                      onSuccess: (run) => {
                        setDraftRun(run.id);
                      },
                    },
                  );
                }}
              >
                {`Draft profiles for ${counted(chosen.length, "functionality", "functionalities")}`}
              </Button>
              <Text size="xs" c="dimmed">
                TRACER's profile writer, with the project's LLM (a few calls).
              </Text>
            </Group>
          )}
          {draft.isError && <ServerErrorAlert error={draft.error} title="Could not start drafting" />}
          {draftRun !== null && projectId !== null && <DraftResult runId={draftRun} projectId={projectId} />}
        </Stack>
      )}
    </Paper>
  );
}

export function CoverageView({ runId, mode }: { runId: number; mode: DashboardMode }) {
  const [params] = useSearchParams();
  const tracer = positiveInt(params.get("tracer"));
  const coverage = useCoverage(runId, tracer);
  const run = useRun(mode === "owner" ? runId : 0);
  const marks = useMemo(() => {
    const data = coverage.data;
    return data ? Object.fromEntries(data.nodes.map((node) => [node.name, coverageMark(node, data.decided)])) : {};
  }, [coverage.data]);

  const header = (
    <PageHeader
      title={`Coverage map of SENSEI run #${String(runId)}`}
      description="Which functionalities TRACER found were reached by this run's conversations, and where they failed."
      actions={
        <Button component={Link} to={dashboardPaths.run("sensei", runId, mode)} variant="default">
          Back to the run
        </Button>
      }
    />
  );
  if (coverage.isPending)
    return (
      <Stack>
        {header}
        <LoadingState label="Laying the conversations over the graph" />
      </Stack>
    );
  if (coverage.isError) {
    const error = coverage.error;
    const noTracer = error instanceof ApiError && error.status === 400 && "tracer" in error.fields;
    return (
      <Stack>
        {header}
        {noTracer ? (
          <EmptyState title="No TRACER graph to lay the run over">
            {error.fields.tracer?.[0] ?? error.detail}
          </EmptyState>
        ) : (
          <ErrorState error={error} title="Could not draw the coverage map" />
        )}
      </Stack>
    );
  }
  const data = coverage.data;
  const unreached = data.nodes.filter((node) => data.unreached.includes(node.name));
  const canDraft = mode === "owner" && run.data?.is_owner === true;
  return (
    <Stack gap="md">
      {header}
      <Alert color={data.decided ? "blue" : "yellow"} title="How “reached” is decided">
        <Text size="sm">
          {"Over the graph of "}
          <Anchor component={Link} to={dashboardPaths.run("tracer", data.tracer_run, mode)}>
            {`TRACER run #${String(data.tracer_run)}`}
          </Anchor>
          {`: ${String(data.conversations)} conversation(s), ${String(data.reached_none)} reached no functionality`}
          {data.failed_unplaced > 0 ? `, ${String(data.failed_unplaced)} failed before reaching any` : ""}.
        </Text>
        {data.notes.map((note) => (
          <Text key={note} size="xs" c="dimmed" mt={4}>
            {note}
          </Text>
        ))}
      </Alert>
      {data.nodes.length === 0 ? (
        <EmptyState title="The TRACER graph has no functionality">Explore the chatbot again with TRACER.</EmptyState>
      ) : (
        <>
          <WorkflowGraph data={data.graph} marks={marks} filename={`coverage-${String(runId)}`} height={480} />
          <CoverageTable nodes={data.nodes} decided={data.decided} />
          {data.decided && (
            <Unreached
              key={data.tracer_run}
              runId={runId}
              tracerRun={data.tracer_run}
              nodes={unreached}
              canDraft={canDraft}
              projectId={run.data?.project ?? null}
            />
          )}
        </>
      )}
    </Stack>
  );
}

export function CoveragePage({ mode = "owner" }: { mode?: DashboardMode }) {
  const runId = positiveInt(useParams().runId);
  if (runId === null) return <EmptyState title="No such run" />;
  return <CoverageView runId={runId} mode={mode} />;
}

export function PublicCoveragePage() {
  return <CoveragePage mode="public" />;
}
