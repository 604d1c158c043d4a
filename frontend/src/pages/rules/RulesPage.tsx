/**
 * Rules of a project: the list (valid, active), the YAML editor, activating and deactivating (an edit of the
 * rule's `active:` key), checking them on selected SENSEI runs, and the project's check runs.
 */
import { Button, Card, Group, MultiSelect, SimpleGrid, Stack, Switch, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { DEFAULT_CONCURRENCY, useStartProjectRun } from "../../api/runs/project-runs";
import { type Rule, useDeleteRule, useRules, useSaveRule, useSetRuleActive } from "../../api/runs/rule-results";
import { isRunActive } from "../../api/runs/runs";
import { useProjectRuns } from "../../api/runs/runs-dashboard";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { EmptyState } from "../../components/StateViews";
import { counted, noun } from "../../lib/text";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { formatDate } from "../dashboards/format";
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsTable } from "../dashboards/RunsTable";
import type { DocumentSpec } from "../../components/documents/DocumentEditor";
import { DocumentSection, ProjectPickerPage } from "../documents/DocumentSection";

const RULE_DOCUMENTS: DocumentSpec = {
  kind: "rules",
  schema: "rule",
  noun: "rule",
  plural: "Rules",
  hint: "Ctrl+Space suggests keys; hover a key for its description; Ctrl+S saves. An invalid rule is kept but is not checked.",
  minHeight: 260,
  validateAfterMs: 400,
};

function RuleDocuments({ projectId }: { projectId: number }) {
  const rules = useRules(projectId);
  const toggle = useSetRuleActive();
  const remove = useDeleteRule();
  const [toggleError, setToggleError] = useState<Error | null>(null);
  const nameOf = (rule: Rule) => rule.name ?? `rule ${String(rule.id)}`;

  return (
    <DocumentSection
      spec={RULE_DOCUMENTS}
      projectId={projectId}
      list={rules}
      useSave={useSaveRule}
      remove={remove}
      empty={
        <EmptyState title="No rules yet">
          A rule states what must hold in every conversation, e.g. that a completed order always reports its price.
        </EmptyState>
      }
      invalidLabel={(rule) => counted(rule.problems.length, "problem")}
      columns={[
        {
          header: "Active",
          cell: (rule) => (
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
          ),
        },
      ]}
      minWidth={640}
      deleteNote="Past check results keep their copy of the rule."
      above={<ServerErrorAlert error={toggleError} title="Could not change the rule" />}
    />
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
  return (
    <>
      <RuleDocuments projectId={projectId} />
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
    </>
  );
}

export function RulesPage() {
  const [params] = useSearchParams();
  const preselectedRuns = (params.get("runs") ?? "").split(",").filter((id) => /^\d+$/.test(id));
  return (
    <ProjectPickerPage
      title="Rules"
      description="Correctness rules over SENSEI conversations, and their check results."
      belonging="Rules"
    >
      {(projectId) => <ProjectRules projectId={projectId} preselectedRuns={preselectedRuns} />}
    </ProjectPickerPage>
  );
}
