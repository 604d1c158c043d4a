/**
 * Rules of a project: the list (valid, active), the YAML editor, activating and deactivating (an edit of the
 * rule's `active:` key), checking them on selected SENSEI runs, and the project's check runs.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  MultiSelect,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/project-runs";
import { useAllProjects } from "../../api/projects";
import { type Rule, useDeleteRule, useRules, useRuleTemplate, useSetRuleActive } from "../../api/rule-results";
import { isRunActive } from "../../api/runs";
import { useProjectRuns } from "../../api/runs-dashboard";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ListPage } from "../../components/ListPage";
import { ResourceTable, useDeleteConfirmation } from "../../components/ResourceTable";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { counted, noun } from "../../lib/text";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { formatDate } from "../dashboards/format";
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsTable } from "../dashboards/RunsTable";
import { RuleEditor } from "./RuleEditor";

type Editing = { rule: Rule } | { rule: null } | null;

function RuleList({
  projectId,
  editing,
  onEdit,
}: {
  projectId: number;
  editing: boolean;
  onEdit: (rule: Rule) => void;
}) {
  const rules = useRules(projectId);
  const toggle = useSetRuleActive();
  const deletion = useDeleteConfirmation(useDeleteRule(), (rule: Rule) => ({ projectId, id: rule.id }));
  const [toggleError, setToggleError] = useState<Error | null>(null);
  const nameOf = (rule: Rule) => rule.name ?? `rule ${String(rule.id)}`;

  return (
    <>
      <ServerErrorAlert error={toggleError} title="Could not change the rule" />
      <ResourceTable
        query={rules}
        plural="rules"
        errorTitle="Could not load the rules"
        empty={
          editing ? null : (
            <EmptyState title="No rules yet">
              A rule states what must hold in every conversation, e.g. that a completed order always reports its price.
            </EmptyState>
          )
        }
        label="Rules"
        columns={["Rule", "Valid", "Active", "Updated"]}
        minWidth={640}
        cells={(rule) => (
          <>
            <Table.Td fw={500}>{nameOf(rule)}</Table.Td>
            <Table.Td>
              <Badge color={rule.valid ? "teal" : "red"} variant="light">
                {rule.valid ? "valid" : counted(rule.problems.length, "problem")}
              </Badge>
            </Table.Td>
            <Table.Td>
              <Switch
                aria-label={`Active: ${nameOf(rule)}`}
                checked={rule.active}
                description={
                  rule.active && !rule.valid
                    ? `Not in effect: fix its ${noun(rule.problems.length, "problem")} first.`
                    : undefined
                }
                disabled={toggle.isPending && toggle.variables.rule.id === rule.id}
                onChange={(event) => {
                  setToggleError(null);
                  toggle.mutate(
                    { projectId, rule, active: event.currentTarget.checked },
                    {
                      onError: (error) => {
                        setToggleError(error);
                      },
                    },
                  );
                }}
              />
            </Table.Td>
            <Table.Td>{formatDate(rule.updated_at)}</Table.Td>
          </>
        )}
        deleteRow={{ name: nameOf, ask: deletion.ask }}
        actions={(rule) => (
          <>
            <Button
              size="xs"
              variant="light"
              aria-label={`Edit ${nameOf(rule)}`}
              onClick={() => {
                onEdit(rule);
              }}
            >
              Edit
            </Button>
          </>
        )}
      />
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${deletion.target?.name ?? "this rule"}?`}
        confirmLabel="Delete rule"
      >
        Past check results keep their copy of the rule.
      </ConfirmDialog>
    </>
  );
}

function StartCheck({ projectId, rules, preselected }: { projectId: number; rules: Rule[]; preselected: string[] }) {
  const navigate = useNavigate();
  const runs = useProjectRuns(projectId, "sensei");
  const start = useStartProjectRun(projectId);
  const [selected, setSelected] = useState<string[]>(preselected);
  const [chosenRules, setChosenRules] = useState<string[]>([]);
  const finished = (runs.data ?? []).filter((run) => !isRunActive(run.status));
  const runChoices = finished.map((run) => ({
    value: String(run.id),
    label: `#${String(run.id)} · ${run.status} · ${formatDate(run.created_at)}`,
  }));
  const ruleChoices = rules
    .filter((rule) => rule.valid)
    .map((rule) => ({ value: String(rule.id), label: rule.name ?? "" }));
  const activeValid = rules.filter((rule) => rule.valid && rule.active).length;
  // An active rule with problems is not checked: say so, by name, where the active rules are counted.
  const leftOut = rules
    .filter((rule) => rule.active && !rule.valid)
    .map((rule) => rule.name ?? `rule ${String(rule.id)}`);
  const leftOutText =
    leftOut.length === 0
      ? ""
      : ` Left out because ${leftOut.length === 1 ? "it has" : "they have"} problems: ${leftOut.join(", ")}.`;

  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Title order={2} size="h5">
          Check rules
        </Title>
        <MultiSelect
          label="SENSEI runs"
          description="The conversations of these runs are checked."
          placeholder={
            runs.isPending ? "Loading runs…" : runChoices.length === 0 ? "No finished SENSEI run" : "Pick runs"
          }
          data={runChoices}
          value={selected}
          onChange={setSelected}
          searchable
          clearable
        />
        <MultiSelect
          label="Rules"
          description={`Empty: the ${counted(activeValid, "active rule")}.${leftOutText}`}
          placeholder="Active rules"
          data={ruleChoices}
          value={chosenRules}
          onChange={setChosenRules}
          searchable
          clearable
        />
        <ServerErrorAlert error={start.error} title="Could not start the check" />
        <Group>
          <Button
            loading={start.isPending}
            disabled={selected.length === 0 || (chosenRules.length === 0 && activeValid === 0)}
            onClick={() => {
              start.mutate(
                {
                  kind: "check",
                  concurrency: DEFAULT_CONCURRENCY,
                  sensei_runs: selected.map(Number),
                  ...(chosenRules.length > 0 && { rules: chosenRules.map(Number) }),
                },
                {
                  onSuccess: (run) => {
                    void navigate(dashboardPaths.checkRun(run.id));
                  },
                },
              );
            }}
          >
            Run checks
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function ProjectRules({ projectId, preselectedRuns }: { projectId: number; preselectedRuns: string[] }) {
  const rules = useRules(projectId);
  const [editing, setEditing] = useState<Editing>(null);
  const template = useRuleTemplate(projectId, editing !== null && editing.rule === null);

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h4">
          Rules
        </Title>
        <Button
          onClick={() => {
            setEditing({ rule: null });
          }}
        >
          New rule
        </Button>
      </Group>
      {editing !== null &&
        (editing.rule === null && template.isPending ? (
          <LoadingState label="Loading the template" />
        ) : (
          <RuleEditor
            key={editing.rule?.id ?? "new"}
            projectId={projectId}
            rule={editing.rule}
            initialText={editing.rule?.text ?? template.data ?? ""}
            onDone={() => {
              setEditing(null);
            }}
          />
        ))}
      <RuleList
        projectId={projectId}
        editing={editing !== null}
        onEdit={(rule) => {
          setEditing({ rule });
        }}
      />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <StartCheck projectId={projectId} rules={rules.data ?? []} preselected={preselectedRuns} />
        <PassRateCard kind="check" mode="owner" projectId={projectId} />
      </SimpleGrid>
      <Title order={2} size="h4">
        Check runs
      </Title>
      <RunsTable
        kind="check"
        mode="owner"
        projectId={projectId}
        empty={<Text c="dimmed">No check has run yet.</Text>}
      />
    </Stack>
  );
}

export function RulesPage() {
  const [params, setParams] = useSearchParams();
  const projects = useAllProjects();
  const projectParam = Number(params.get("project"));
  const owned = projects.data ?? [];
  const projectId =
    Number.isInteger(projectParam) && owned.some((p) => p.id === projectParam) ? projectParam : (owned[0]?.id ?? null);
  const preselectedRuns = (params.get("runs") ?? "").split(",").filter((id) => /^\d+$/.test(id));

  return (
    <ListPage wide title="Rules" description="Correctness rules over SENSEI conversations, and their check results.">
      {projects.isPending && <LoadingState label="Loading projects" />}
      {projects.isError && <ErrorState error={projects.error} title="Could not load the projects" />}
      {projects.data?.length === 0 && (
        <Alert color="blue" title="No project yet">
          Rules belong to a project: create one first.
        </Alert>
      )}
      {owned.length > 0 && (
        <Select
          label="Project"
          data={owned.map((p) => ({ value: String(p.id), label: p.name }))}
          value={projectId === null ? null : String(projectId)}
          onChange={(value) => {
            if (value) setParams({ project: value });
          }}
          allowDeselect={false}
          maw={320}
        />
      )}
      {projectId !== null && <ProjectRules key={projectId} projectId={projectId} preselectedRuns={preselectedRuns} />}
    </ListPage>
  );
}
