/**
 * One check run: per rule its status and counts, and for a rule that failed, each failing check with its reason,
 * the rule's message and the conversations involved — each one opens as a transcript.
 */
import { Accordion, Anchor, Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { useFoundConversation } from "../../api/runs/conversations";
import { type RuleResultRow, useRuleResults } from "../../api/runs/rule-results";
import { isRunActive, resultOf, type Run } from "../../api/runs/runs";
import { checkPassRate, type RunStatistics, useRunStats } from "../../api/runs/runs-dashboard";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { formatCount, formatPercent } from "./format";
import { RunHeader } from "./RunHeader";
import { RunLivePanel } from "./RunLivePanel";
import { ConversationModal, ExportMenu } from "./SenseiRunView";

const RULE_COLOR: Record<string, string> = {
  passed: "teal",
  failed: "red",
  error: "orange",
  not_applicable: "gray",
};

/** A conversation a check result names: one click opens it (it is looked up by its record id meanwhile). */
function ConversationLink({ recordId, onOpen }: { recordId: string; onOpen: (recordId: string) => void }) {
  return (
    <Anchor
      component="button"
      size="xs"
      ff="monospace"
      aria-label={`Open conversation ${recordId}`}
      onClick={() => {
        onOpen(recordId);
      }}
    >
      {recordId}
    </Anchor>
  );
}

/** The conversation of a record id, looked up among the SENSEI runs the check read, in the transcript dialog. */
function FoundConversationModal({
  senseiRuns,
  recordId,
  onClose,
}: {
  senseiRuns: number[];
  recordId: string | null;
  onClose: () => void;
}) {
  const found = useFoundConversation(senseiRuns, recordId);
  const target = recordId !== null && found.data ? found.data : null;
  return (
    <ConversationModal
      runId={target?.runId ?? 0}
      conversationId={target?.conversationId ?? null}
      onClose={onClose}
      lookup={
        recordId === null
          ? null
          : {
              recordId,
              pending: found.isPending,
              error: found.error,
              missing: found.isSuccess && found.data === null,
            }
      }
    />
  );
}

function RuleDrillDown({ row, onOpen }: { row: RuleResultRow; onOpen: (recordId: string) => void }) {
  const report = row.report;
  const notApplicable = Object.entries(report.not_applicable_reasons);
  return (
    <Stack gap="xs">
      {report.description && <Text size="sm">{report.description}</Text>}
      {report.results.length === 0 ? (
        <Text size="sm" c="dimmed">
          No failing check.
        </Text>
      ) : (
        <Table withTableBorder fz="xs" aria-label={`Failing checks of ${row.name}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Outcome</Table.Th>
              <Table.Th>Reason</Table.Th>
              <Table.Th>Message</Table.Th>
              <Table.Th>Conversations</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.results.map((result, index) => (
              <Table.Tr key={index}>
                <Table.Td>
                  <Badge color={result.outcome === "fail" ? "red" : "orange"} variant="light">
                    {result.outcome}
                  </Badge>
                </Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>{result.reason ?? "—"}</Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>{result.message ?? "—"}</Table.Td>
                <Table.Td>
                  <Stack gap={2}>
                    {result.conversations.slice(0, 20).map((id) => (
                      <ConversationLink key={id} recordId={id} onOpen={onOpen} />
                    ))}
                    {result.conversations.length > 20 && (
                      <Text size="xs" c="dimmed">{`and ${String(result.conversations.length - 20)} more`}</Text>
                    )}
                  </Stack>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {report.omitted > 0 && <Text size="xs" c="dimmed">{`${String(report.omitted)} more not listed.`}</Text>}
      {notApplicable.length > 0 && (
        <Text size="xs" c="dimmed">
          {`Not applicable: ${notApplicable.map(([reason, count]) => `${reason} (${String(count)})`).join("; ")}`}
        </Text>
      )}
    </Stack>
  );
}

function passRate(stats: RunStatistics | undefined, row: RuleResultRow): number | null {
  const fromStats = stats?.rules.find((rule) => rule.name === row.name)?.pass_rate;
  if (fromStats !== undefined && fromStats !== null) return fromStats;
  const decided = row.passed + row.failed + row.errors;
  return decided > 0 ? row.passed / decided : null;
}

export function CheckRunView({ run, mode }: { run: Run; mode: DashboardMode }) {
  const result = resultOf(run, "check");
  const senseiRuns = Array.isArray(run.params.sensei_runs)
    ? run.params.sensei_runs.filter((id): id is number => typeof id === "number")
    : [];
  const active = isRunActive(run.status);
  const results = useRuleResults(run.id, !active);
  const stats = useRunStats(run.id, false, !active);
  const [open, setOpen] = useState<string | null>(null);

  return (
    <Stack gap="md">
      <RunHeader
        run={run}
        mode={mode}
        title={`Check run #${String(run.id)}`}
        backTo={
          mode === "public" && run.project
            ? dashboardPaths.publicProject(run.project)
            : dashboardPaths.rules(run.project)
        }
        facts={[
          {
            label: "SENSEI runs",
            value: (
              <Group gap={4}>
                {senseiRuns.map((id) => (
                  <Anchor key={id} component={Link} to={dashboardPaths.senseiRun(id, mode)} size="sm">
                    {`#${String(id)}`}
                  </Anchor>
                ))}
              </Group>
            ),
          },
          { label: "Conversations", value: formatCount(result?.conversations ?? null) },
          { label: "Rules passed", value: formatPercent(checkPassRate(result)) },
        ]}
        actions={<ExportMenu runId={run.id} />}
      />
      {active && <RunLivePanel run={run} readOnly={mode === "public"} />}
      <Title order={2} size="h4">
        Results per rule
      </Title>
      {results.isPending && !active && <LoadingState label="Loading the results" />}
      {results.isError && <ErrorState error={results.error} title="Could not load the results" />}
      {results.data?.length === 0 && <Text c="dimmed">No rule was checked.</Text>}
      {results.data && results.data.length > 0 && (
        <Accordion variant="separated" multiple aria-label="Rules">
          {results.data.map((row) => (
            <Accordion.Item key={row.id} value={String(row.id)}>
              <Accordion.Control>
                <Group gap="sm" wrap="wrap">
                  <Text fw={600}>{row.name}</Text>
                  <Badge color={RULE_COLOR[row.status] ?? "gray"} variant="light">
                    {row.status.replace("_", " ")}
                  </Badge>
                  <Text size="sm" c="dimmed">
                    {`${counted(row.checks, "check")}: ${String(row.passed)} passed, ${String(row.failed)} failed, ${String(
                      row.not_applicable,
                    )} not applicable, ${counted(row.errors, "error")} — pass rate ${formatPercent(passRate(stats.data, row))}`}
                  </Text>
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                <RuleDrillDown row={row} onOpen={setOpen} />
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      )}
      <FoundConversationModal
        senseiRuns={senseiRuns}
        recordId={open}
        onClose={() => {
          setOpen(null);
        }}
      />
    </Stack>
  );
}
