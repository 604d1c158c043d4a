/**
 * A model qualification (issue 36): one row per model and role, a cost-versus-kills chart, the conversations behind
 * every false alarm and missed mutant, the recommendation with its figures, and "Apply to project".
 */
import "@mantine/charts/styles.css";
import { ScatterChart } from "@mantine/charts";
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useConversation } from "../../api/runs/conversations";
import { ApiError } from "../../api/errors";
import { useAllProjects } from "../../api/workspace/projects";
import {
  type ExplorerFigures,
  type QualifyResult,
  type RoleFigures,
  useApplyQualification,
  useQualification,
} from "../../api/bench/qualify";
import { PageHeader } from "../../components/PageHeader";
import { RunProgress } from "../../components/RunProgress";
import { Transcript } from "../../components/transcript/Transcript";
import { useFollowedRun } from "../../components/use-followed-run";
import { paths } from "../../lib/paths";

const ROLE = { simulated_user: "simulated user", judge: "judge/extractor", pair: "together", explorer: "explorer" };
const VERDICT_COLOR: Record<string, string> = {
  qualified: "teal",
  "usable with care": "yellow",
  "not qualified": "red",
  "too few to tell": "gray",
};
const pct = (value: number | null | undefined) => (value === null || value === undefined ? "–" : `${String(value)} %`);

function perKill(row: RoleFigures): string {
  if (row.cost_per_kill !== null) return `$${row.cost_per_kill.toFixed(4)}`;
  if (row.seconds_per_kill !== null && row.tokens_per_kill !== null)
    return `${String(row.seconds_per_kill)} s · ${row.tokens_per_kill.toLocaleString()} tokens`;
  return "no kill";
}

function Verdict({ verdict }: { verdict: string }) {
  return (
    <Badge variant="light" color={VERDICT_COLOR[verdict] ?? "gray"}>
      {verdict}
    </Badge>
  );
}

function Links({ refs, ids, label }: { refs: string[]; ids: Record<string, number>; label: string }) {
  const [, setParams] = useSearchParams();
  if (refs.length === 0) return <Text size="xs">none</Text>;
  return (
    <Group gap={4}>
      {refs.map((ref, index) => {
        const id = ids[ref];
        return id === undefined ? (
          <Text key={ref} size="xs">
            {index + 1}
          </Text>
        ) : (
          <Anchor
            key={ref}
            size="xs"
            component="button"
            aria-label={`${label} ${String(index + 1)}`}
            onClick={() => {
              setParams({ conversation: String(id) });
            }}
          >
            {index + 1}
          </Anchor>
        );
      })}
    </Group>
  );
}

function RolesTable({ result }: { result: QualifyResult }) {
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table withTableBorder striped aria-label="Models and roles">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <Table.Th>Role</Table.Th>
            <Table.Th>Kills (with oracles)</Table.Th>
            <Table.Th>Controls killed</Table.Th>
            <Table.Th>False alarms</Table.Th>
            <Table.Th>Inconclusive</Table.Th>
            <Table.Th>LLM failures</Table.Th>
            <Table.Th>Cost or time per kill</Table.Th>
            <Table.Th>Verdict</Table.Th>
            <Table.Th>False alarms (conversations)</Table.Th>
            <Table.Th>Missed mutants (conversations)</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {result.models.map((row) => (
            <Table.Tr key={`${row.model}-${row.role}`}>
              <Table.Td>
                {row.model}
                {row.note && (
                  <Text size="xs" c="dimmed">
                    {row.note}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{ROLE[row.role]}</Table.Td>
              <Table.Td>
                {pct(row.kill_rate)} ({row.killed}/{row.scored_mutants})
              </Table.Td>
              <Table.Td>{pct(row.control_kill_rate)}</Table.Td>
              <Table.Td>{pct(row.false_alarm_rate)}</Table.Td>
              <Table.Td>{pct(row.inconclusive_share)}</Table.Td>
              <Table.Td>
                {row.llm_failures}/{row.llm_calls}
              </Table.Td>
              <Table.Td>{perKill(row)}</Table.Td>
              <Table.Td title={row.reason}>
                <Verdict verdict={row.verdict} />
              </Table.Td>
              <Table.Td>
                <Links
                  refs={row.false_alarm_conversations}
                  ids={result.conversations}
                  label={`False alarm of ${row.model} (${ROLE[row.role]})`}
                />
              </Table.Td>
              <Table.Td>
                <Links
                  refs={row.missed_mutant_conversations}
                  ids={result.conversations}
                  label={`Missed mutant of ${row.model} (${ROLE[row.role]})`}
                />
              </Table.Td>
            </Table.Tr>
          ))}
          {result.explorers.map((row: ExplorerFigures) => (
            <Table.Tr key={`${row.model}-explorer`}>
              <Table.Td>{row.model}</Table.Td>
              <Table.Td>explorer</Table.Td>
              <Table.Td colSpan={6}>
                precision {pct(row.precision)} · recall {pct(row.recall)} · coverage {pct(row.coverage)} (
                {row.functionalities} functionalities, {row.invented} invented, {row.duplicates} duplicates)
              </Table.Td>
              <Table.Td title={row.reason}>
                <Verdict verdict={row.verdict} />
              </Table.Td>
              <Table.Td colSpan={2}>
                <Text size="xs">{row.missed_steps.length} steps missed</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

const COLORS = ["teal.6", "blue.6", "orange.6", "grape.6", "red.6", "cyan.6", "lime.6", "pink.6"];

function CostKillsChart({ rows }: { rows: RoleFigures[] }) {
  const priced = rows.some((row) => row.cost_per_kill !== null);
  const x = (row: RoleFigures) => (priced ? row.cost_per_kill : row.seconds_per_kill);
  const points = rows.filter((row) => row.kill_rate !== null && x(row) !== null);
  const models = [...new Set(points.map((row) => row.model))];
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label="Cost versus kills chart">
      <Stack gap="xs">
        <Title order={3} size="h6">
          {priced ? "Cost per kill" : "Time per kill"} versus kills
        </Title>
        {points.length === 0 ? (
          <Text size="sm" c="dimmed" py="md" ta="center">
            No model killed a mutant.
          </Text>
        ) : (
          <ScatterChart
            h={240}
            data={models.map((model, index) => ({
              name: model,
              color: COLORS[index % COLORS.length] ?? "gray.6",
              data: points
                .filter((row) => row.model === model)
                .map((row) => ({ perKill: x(row) ?? 0, kills: row.kill_rate ?? 0 })),
            }))}
            dataKey={{ x: "perKill", y: "kills" }}
            xAxisLabel={priced ? "USD per kill" : "seconds per kill"}
            yAxisLabel="kills %"
            withLegend
          />
        )}
        <Text component="figcaption" size="xs" c="dimmed">
          One point per model and role (simulated user, judge); lower left is cheap and weak, upper left cheap and
          strong.
        </Text>
      </Stack>
    </Paper>
  );
}

function Recommendation({ runId, result }: { runId: number; result: QualifyResult }) {
  const projects = useAllProjects();
  const apply = useApplyQualification();
  const [project, setProject] = useState<string | null>(null);
  const rec = result.recommendation;
  if (!rec)
    return (
      <Alert color="gray" title="No recommendation">
        No model other than the ceiling double was qualified or usable with care in both roles.
      </Alert>
    );
  const together = rec.figures.together;
  return (
    <Card withBorder aria-label="Recommendation">
      <Stack gap="xs">
        <Title order={2} size="h4">
          Recommendation
        </Title>
        <Text>
          Simulated user <b>{rec.simulated_user}</b>, judge/extractor <b>{rec.judge}</b>
          {rec.explorer && (
            <>
              , explorer <b>{rec.explorer}</b>
            </>
          )}
          . Together: <Verdict verdict={rec.verdict_together} />
        </Text>
        <Text size="sm" c="dimmed">
          Together: kills {pct(together.kill_rate)} ({together.killed}/{together.scored_mutants}), false alarms{" "}
          {pct(together.false_alarm_rate)}, {perKill(together)} per kill. {rec.reason}
        </Text>
        <Group align="flex-end">
          <Select
            label="Project"
            placeholder="Choose a project"
            data={(projects.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
            value={project}
            onChange={setProject}
            w={280}
          />
          <Button
            disabled={project === null}
            loading={apply.isPending}
            onClick={() => {
              apply.mutate(
                { runId, project: Number(project) },
                {
                  onSuccess: (applied) => {
                    notifications.show({
                      color: "green",
                      title: "Applied",
                      message: `The project now uses ${applied.profile_model} (user), ${applied.judge_model} (judge) and ${applied.exploration_model} (explorer).`,
                    });
                  },
                  onError: (error) => {
                    notifications.show({
                      color: "red",
                      title: "Not applied",
                      message: error instanceof ApiError ? error.detail : "Something went wrong.",
                    });
                  },
                },
              );
            }}
          >
            Apply to project
          </Button>
          {apply.data && (
            <Anchor component={Link} to={paths.editProject(apply.data.project)}>
              Open the project's settings
            </Anchor>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          Sets the project's key and models; the profiles' own llm.model stays as written.
        </Text>
      </Stack>
    </Card>
  );
}

function ConversationModal({ runId }: { runId: number }) {
  const [params, setParams] = useSearchParams();
  const id = params.get("conversation");
  const conversation = useConversation(runId, id === null ? null : Number(id));
  return (
    <Modal
      opened={id !== null}
      onClose={() => {
        setParams({});
      }}
      title="Conversation"
      size="xl"
    >
      {conversation.data && <Transcript record={conversation.data.record} decision={conversation.data} />}
    </Modal>
  );
}

export function QualificationPage() {
  const runId = Number(useParams().runId);
  const { run, active } = useFollowedRun(runId);
  const finished = run?.status === "succeeded";
  const result = useQualification(runId, finished);
  return (
    <Stack gap="md">
      <PageHeader
        title="Model qualification"
        description="Which model can test my chatbot: kills, false alarms and cost per kill, per model and role, on the reference bots."
      />
      {(active || !finished) && <RunProgress runId={runId} title="Qualifying" />}
      {result.data && (
        <>
          <Text size="sm" c="dimmed">
            Parley {result.data.parley_version} · seed {result.data.seed} · size {result.data.size} · partner{" "}
            {result.data.partner} · bots {result.data.plan.bots.join(", ")} · {result.data.plan.repeats} repeats,{" "}
            {result.data.plan.controls} controls per bot
          </Text>
          <RolesTable result={result.data} />
          <CostKillsChart rows={result.data.models.filter((row) => row.role !== "pair")} />
          <Recommendation runId={runId} result={result.data} />
          <ConversationModal runId={runId} />
        </>
      )}
    </Stack>
  );
}
