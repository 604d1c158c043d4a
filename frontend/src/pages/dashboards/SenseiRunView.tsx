/**
 * One SENSEI run: live progress, the charts (errors by type, response times, cost per profile), per-profile
 * results, the conversations (filtered and paginated on the server) with each one's transcript, and exports.
 */
import {
  Anchor,
  Badge,
  Button,
  Group,
  Menu,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { type ConversationVerdict, useConversation, useConversationsPage } from "../../api/runs/conversations";
import { type Fault, FAULTS } from "../../api/runs/faults";
import { runKeys } from "../../api/query-keys";
import { isRunActive, resultOf, type Run } from "../../api/runs/runs";
import {
  documentNames,
  type ExportFormat,
  type RunStatistics,
  useDownloadExport,
  useRunStats,
} from "../../api/runs/runs-dashboard";
import { CostPerProfileChart, ErrorsByTypeChart, ResponseTimeChart } from "../../components/charts/RunCharts";
import { CostText } from "../../components/CostText";
import { ResourceTable } from "../../components/ResourceTable";
import { RunWarnings } from "../../components/RunWarnings";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { BaselineActions } from "../compare/BaselineActions";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { Transcript } from "../../components/transcript/Transcript";
import {
  FAULT_LABEL,
  FaultCell,
  inconclusiveFaults,
  VERDICTS,
  VerdictCell,
  VerdictCounts,
} from "../../components/Verdicts";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { formatCount, formatPercent, formatSeconds } from "./format";
import { RunHeader } from "./RunHeader";
import { type ProfileReliability, shakyConversations } from "../../api/runs/reliability";
import { RunLivePanel } from "./RunLivePanel";
import { ShrinkPanel } from "./ShrinkPanel";

const EXPORTS: { format: ExportFormat; label: string }[] = [
  { format: "json", label: "JSON" },
  { format: "csv", label: "CSV" },
  { format: "junit", label: "JUnit XML" },
];

export function ExportMenu({ runId }: { runId: number }) {
  const download = useDownloadExport();
  return (
    <>
      <Menu position="bottom-end">
        <Menu.Target>
          <Button variant="default" loading={download.isPending}>
            Export
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {EXPORTS.map(({ format, label }) => (
            <Menu.Item
              key={format}
              onClick={() => {
                download.mutate({ runId, format });
              }}
            >
              {label}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>
      {download.isError && <ServerErrorAlert error={download.error} title="The export failed" />}
    </>
  );
}

/** While a conversation is looked up by the record id a check result names (see `CheckRunView`). */
export interface ConversationLookup {
  recordId: string;
  pending: boolean;
  error: Error | null;
  /** The lookup finished and no stored conversation has this id. */
  missing: boolean;
}

export function ConversationModal({
  runId,
  conversationId,
  onClose,
  lookup,
  shrinkFor,
}: {
  runId: number;
  conversationId: number | null;
  onClose: () => void;
  lookup?: ConversationLookup | null;
  /** The run's owner may shrink a failed conversation: its project (null when the run has none). */
  shrinkFor?: { projectId: number | null } | null;
}) {
  const conversation = useConversation(runId, conversationId);
  const record = conversation.data?.record ?? null;
  return (
    <Modal
      opened={conversationId !== null || (lookup ?? null) !== null}
      onClose={onClose}
      size="xl"
      title={
        conversation.data
          ? `${conversation.data.profile} — conversation ${String(conversation.data.index + 1)}`
          : (lookup?.recordId ?? "Conversation")
      }
    >
      {lookup?.pending && <LoadingState label={`Finding conversation ${lookup.recordId}`} />}
      {lookup?.error && <ErrorState error={lookup.error} title="Could not find the conversation" />}
      {lookup?.missing && (
        <Text size="sm" c="dimmed">
          {`Conversation ${lookup.recordId} is no longer stored: its SENSEI run may have been deleted.`}
        </Text>
      )}
      {conversationId !== null && conversation.isPending && <LoadingState label="Loading the conversation" />}
      {conversation.isError && <ErrorState error={conversation.error} title="Could not load the conversation" />}
      {record && (
        <Stack gap="sm">
          <Group gap="md">
            <Text size="sm" c="dimmed">{`Duration ${formatSeconds(record.duration_s)}`}</Text>
            <CostText
              size="sm"
              c="dimmed"
              prefix="Cost "
              usd={record.usage.cost_usd}
              unpriced={record.usage.cost_usd === null}
            />
            {record.language && <Text size="sm" c="dimmed">{`Language ${record.language}`}</Text>}
          </Group>
          <Transcript record={record} decision={conversation.data ?? null} />
          {shrinkFor && conversationId !== null && conversation.data?.verdict === "failed" && (
            <ShrinkPanel
              key={conversationId}
              runId={runId}
              conversationId={conversationId}
              projectId={shrinkFor.projectId}
            />
          )}
        </Stack>
      )}
    </Modal>
  );
}

function ReliabilityCell({ row }: { row: ProfileReliability | undefined }) {
  if (row === undefined || row.k < 2)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Stack gap={0}>
      <Text size="sm">{`pass^${String(row.k)} ${formatPercent(row.pass_k.rate)} · pass@1 ${formatPercent(row.pass_at_1.rate)}`}</Text>
      <Text size="xs" c={row.flaky > 0 ? "orange" : "dimmed"}>
        {`${String(row.flaky)} flaky · ${String(row.pass_k.decided)} of ${String(row.planned)} planned decided`}
      </Text>
    </Stack>
  );
}

/** With repeats: the planned conversations that did not pass every repeat, the flaky ones first. */
function ShakyConversations({ profiles }: { profiles: ProfileReliability[] }) {
  const shaky = shakyConversations(profiles.filter((p) => p.k > 1));
  if (shaky.length === 0) return null;
  return (
    <Table withTableBorder aria-label="Conversations that did not pass every repeat">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Profile</Table.Th>
          <Table.Th>Planned</Table.Th>
          <Table.Th>Stability</Table.Th>
          <Table.Th>Repeats passed</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {shaky.map((c) => (
          <Table.Tr key={`${c.profile}-${String(c.planned_index)}`}>
            <Table.Td>{c.profile}</Table.Td>
            <Table.Td>{`#${String(c.planned_index)}`}</Table.Td>
            <Table.Td>
              <Badge color={c.verdict === "flaky" ? "orange" : c.verdict === "failed" ? "red" : "gray"} variant="light">
                {c.verdict}
              </Badge>
            </Table.Td>
            <Table.Td>{`${String(c.passed)} of ${String(c.decided)} decided (of ${String(c.repeats)})`}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ProfilesTable({
  stats,
  unpriced,
  onPick,
  reliability,
}: {
  stats: RunStatistics;
  /** The run made LLM calls without a price: a profile that cost $0 was not priced, not free. */
  unpriced: boolean;
  onPick: (profile: string) => void;
  reliability: ProfileReliability[];
}) {
  if (stats.profiles.length === 0) return <Text c="dimmed">No conversation has finished yet.</Text>;
  // Runs before verdicts counted conversations with errors; since, only a failed verdict is a chatbot fault.
  const verdicts = stats.failed !== null;
  const byProfile = new Map(reliability.map((r) => [r.profile, r]));
  const repeated = reliability.some((r) => r.k > 1);
  // With repeats, the profiles with flaky conversations come first: they are what a green run hides.
  const rows = repeated
    ? [...stats.profiles].sort(
        (a, b) => (byProfile.get(b.profile)?.flaky ?? 0) - (byProfile.get(a.profile)?.flaky ?? 0),
      )
    : stats.profiles;
  return (
    <Table withTableBorder highlightOnHover aria-label="Results per profile">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Profile</Table.Th>
          <Table.Th>Conversations</Table.Th>
          <Table.Th>{verdicts ? "Verdicts" : "With errors"}</Table.Th>
          <Table.Th>Passed</Table.Th>
          {repeated && <Table.Th>Reliability</Table.Th>}
          <Table.Th>Cost</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.profile}>
            <Table.Td>
              <Anchor
                component="button"
                size="sm"
                onClick={() => {
                  onPick(row.profile);
                }}
              >
                {row.profile}
              </Anchor>
            </Table.Td>
            <Table.Td>{row.conversations}</Table.Td>
            <Table.Td>
              {verdicts ? (
                <VerdictCounts passed={row.passed} failed={row.failed} inconclusive={row.inconclusive} />
              ) : (
                <Text size="sm" c={row.with_errors > 0 ? "red" : undefined}>
                  {row.with_errors}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              {formatPercent(
                verdicts
                  ? row.passed + row.failed > 0
                    ? row.passed / (row.passed + row.failed)
                    : null
                  : row.conversations > 0
                    ? (row.conversations - row.with_errors) / row.conversations
                    : null,
              )}
            </Table.Td>
            {repeated && (
              <Table.Td>
                <ReliabilityCell row={byProfile.get(row.profile)} />
              </Table.Td>
            )}
            <Table.Td>
              <CostText usd={row.cost_usd} unpriced={unpriced && row.cost_usd === 0} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ConversationsSection({
  run,
  stats,
  profile,
  setProfile,
  canShrink,
}: {
  run: Run;
  stats: RunStatistics | undefined;
  profile: string | null;
  setProfile: (profile: string | null) => void;
  canShrink: boolean;
}) {
  const [page, setPage] = useState(1);
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const [verdict, setVerdict] = useState<ConversationVerdict | null>(null);
  const [fault, setFault] = useState<Fault | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const filters = {
    page,
    profile,
    hasErrors: errorsOnly ? true : null,
    errorCode: errorCode === null ? null : Number(errorCode),
    verdict,
    fault,
  };
  const rows = useConversationsPage(run.id, filters, isRunActive(run.status));
  // Runs stored before verdicts with proof say nothing of who is at fault: no column, no filter for them.
  const faultsKnown =
    fault !== null ||
    (stats !== undefined && stats.failed !== null) ||
    (rows.data?.results ?? []).some((row) => row.fault !== null);
  const profileChoices = (stats?.profiles ?? []).map((row) => row.profile);
  const codeChoices = (stats?.errors_by_code ?? []).map((row) => ({
    value: String(row.code),
    label: `${String(row.code)} ${row.name}`,
  }));
  const codeNames = new Map((stats?.errors_by_code ?? []).map((row) => [row.code, row.name]));

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <Select
          label="Profile"
          placeholder="All profiles"
          data={profileChoices}
          value={profile}
          onChange={(value) => {
            setProfile(value);
            setPage(1);
          }}
          clearable
          w={240}
        />
        <Select
          label="Verdict"
          placeholder="Any verdict"
          data={VERDICTS}
          value={verdict}
          onChange={(value) => {
            setVerdict(VERDICTS.find((v) => v === value) ?? null);
            setPage(1);
          }}
          clearable
          w={180}
        />
        {faultsKnown && (
          <Select
            label="At fault"
            placeholder="Anyone"
            data={FAULTS.map((value) => ({ value, label: FAULT_LABEL[value] }))}
            value={fault}
            onChange={(value) => {
              setFault(FAULTS.find((f) => f === value) ?? null);
              setPage(1);
            }}
            clearable
            w={200}
          />
        )}
        <Select
          label="Error"
          placeholder="Any"
          data={codeChoices}
          value={errorCode}
          onChange={(value) => {
            setErrorCode(value);
            setPage(1);
          }}
          clearable
          w={240}
        />
        <Switch
          label="Only conversations with errors"
          checked={errorsOnly}
          onChange={(event) => {
            setErrorsOnly(event.currentTarget.checked);
            setPage(1);
          }}
          mb={8}
        />
      </Group>
      <ResourceTable
        query={rows}
        plural="conversations"
        loadingLabel="Loading the conversations"
        errorTitle="Could not load the conversations"
        noRows="No conversation matches."
        label="Conversations"
        columns={[
          "Profile",
          "#",
          "Turns",
          "Verdict",
          ...(faultsKnown ? ["At fault"] : []),
          "Errors",
          "Duration",
          "Cost",
          <Table.Th key="open">
            <VisuallyHidden>Open</VisuallyHidden>
          </Table.Th>,
        ]}
        minWidth={860}
        cells={(row) => (
          <>
            <Table.Td>{row.profile}</Table.Td>
            <Table.Td>{row.index + 1}</Table.Td>
            <Table.Td>{row.turns}</Table.Td>
            <Table.Td>
              <VerdictCell verdict={row.verdict} reason={row.verdict_reason} />
            </Table.Td>
            {faultsKnown && (
              <Table.Td>
                <FaultCell fault={row.fault} evidenceTurn={row.evidence_turn} />
              </Table.Td>
            )}
            <Table.Td>
              <Group gap={4}>
                {row.error_codes.length === 0 ? (
                  <Badge color="teal" variant="light">
                    ok
                  </Badge>
                ) : (
                  row.error_codes.map((code) => (
                    <Badge key={code} color="red" variant="light" title={codeNames.get(code)}>
                      {code}
                    </Badge>
                  ))
                )}
              </Group>
            </Table.Td>
            <Table.Td>{formatSeconds(row.duration_s)}</Table.Td>
            <Table.Td>
              <CostText usd={row.cost_usd} unpriced={row.cost_usd === null} />
            </Table.Td>
            <Table.Td>
              <Button
                size="compact-xs"
                variant="light"
                aria-label={`Read conversation ${String(row.index + 1)} of ${row.profile}`}
                onClick={() => {
                  setOpen(row.id);
                }}
              >
                Read
              </Button>
            </Table.Td>
          </>
        )}
        page={page}
        onPageChange={setPage}
      />
      <ConversationModal
        runId={run.id}
        conversationId={open}
        onClose={() => {
          setOpen(null);
        }}
        shrinkFor={canShrink ? { projectId: run.project } : null}
      />
    </Stack>
  );
}

/** The last conversations are stored just before the run finishes: read the aggregates and the list once more. */
function useRefreshWhenFinished(runId: number, active: boolean) {
  const queryClient = useQueryClient();
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      void queryClient.invalidateQueries({ queryKey: runKeys.stats(runId) });
      void queryClient.invalidateQueries({ queryKey: runKeys.conversations(runId) });
    }
    wasActive.current = active;
  }, [active, runId, queryClient]);
}

/**
 * A verdict count and, below it, why: "inputs not conveyed 3, rate limited 1", and who is at fault when the run
 * says ("At fault: Simulated user 2 · Parley's model 1").
 */
function VerdictCount({
  count,
  reasons,
  color,
  faults = "",
}: {
  count: number;
  reasons: Record<string, number>;
  color?: string;
  faults?: string;
}) {
  return (
    <Stack gap={0}>
      <Text fw={500} c={count > 0 ? color : undefined}>
        {formatCount(count)}
      </Text>
      {Object.keys(reasons).length > 0 && (
        <Text size="xs" c="dimmed">
          {Object.entries(reasons)
            .map(([name, n]) => `${name.replace(/_/g, " ")} ${String(n)}`)
            .join(", ")}
        </Text>
      )}
      {faults !== "" && (
        <Text size="xs" c="dimmed">
          {`At fault: ${faults}`}
        </Text>
      )}
    </Stack>
  );
}

export function SenseiRunView({ run, mode }: { run: Run; mode: DashboardMode }) {
  const result = resultOf(run, "sensei");
  const reliability = result?.reliability ?? [];
  const active = isRunActive(run.status);
  const stats = useRunStats(run.id, active);
  useRefreshWhenFinished(run.id, active);
  const [profile, setProfile] = useState<string | null>(null);
  const conversations = stats.data?.conversations ?? result?.conversations ?? null;
  const withErrors = stats.data?.with_errors ?? result?.with_errors ?? null;
  // Runs stored before verdicts have none: they show their conversations with errors.
  const verdicts = stats.data && stats.data.failed !== null ? { ...stats.data, failed: stats.data.failed } : null;
  const canCheck = mode === "owner" && run.is_owner && !active && run.project !== null;

  return (
    <Stack gap="md">
      <RunHeader
        run={run}
        mode={mode}
        title={`SENSEI run #${String(run.id)}`}
        backTo={mode === "public" && run.project ? dashboardPaths.publicProject(run.project) : dashboardPaths.sensei}
        facts={[
          { label: "Profiles", value: documentNames(run.params.profiles).join(", ") || "—" },
          { label: "Conversations", value: formatCount(conversations) },
          ...(verdicts === null
            ? [{ label: "With errors", value: formatCount(withErrors) }]
            : [
                { label: "Passed", value: formatCount(verdicts.passed ?? 0) },
                {
                  label: "Failed (chatbot faults)",
                  value: <VerdictCount count={verdicts.failed} reasons={verdicts.failed_reasons} color="red" />,
                },
                {
                  label: "Inconclusive (not the chatbot's fault)",
                  value: (
                    <VerdictCount
                      count={verdicts.inconclusive ?? 0}
                      reasons={verdicts.inconclusive_reasons}
                      faults={inconclusiveFaults(verdicts.faults)}
                    />
                  ),
                },
                { label: "Simulator slips", value: formatCount(verdicts.simulator_slips) },
              ]),
        ]}
        actions={
          <>
            {canCheck && (
              <Button
                component={Link}
                to={`${dashboardPaths.rules(run.project)}&runs=${String(run.id)}`}
                variant="light"
              >
                Check rules
              </Button>
            )}
            <BaselineActions run={run} mode={mode} />
            <ExportMenu runId={run.id} />
          </>
        }
      />
      <RunWarnings warnings={result?.warnings ?? []} />
      {(active || mode === "owner") && <RunLivePanel run={run} readOnly={mode === "public"} />}

      {stats.isError && <ErrorState error={stats.error} title="Could not load the statistics" />}
      {stats.data && (
        <>
          <Title order={2} size="h4">
            Charts
          </Title>
          <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
            <ErrorsByTypeChart errors={stats.data.errors_by_code} />
            <ResponseTimeChart times={stats.data.response_times} />
            <CostPerProfileChart profiles={stats.data.profiles} unpricedCalls={run.usage.unpriced_calls} />
          </SimpleGrid>
          <Title order={2} size="h4">
            Per profile
          </Title>
          <ProfilesTable
            stats={stats.data}
            unpriced={run.usage.unpriced_calls > 0}
            onPick={setProfile}
            reliability={reliability}
          />
          <ShakyConversations profiles={reliability} />
        </>
      )}
      <Paper>
        <Title order={2} size="h4" mb="xs">
          Conversations
        </Title>
        <ConversationsSection
          run={run}
          stats={stats.data}
          profile={profile}
          setProfile={setProfile}
          canShrink={canCheck}
        />
      </Paper>
    </Stack>
  );
}
