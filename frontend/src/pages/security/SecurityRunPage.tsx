/**
 * A campaign run: progress and the live conversation while it runs; the breach rate per attack and per delivery
 * mode (95 % Wilson intervals over the attempts that reached a decision); every attempt with its verdict and the
 * quoted evidence; exports. The same page serves the owner and visitors of a public project (read-only).
 */
import { Button, Select, Stack, Table, Tabs, Text, Title, Tooltip } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { isRunActive, type Run } from "../../api/runs/runs";
import {
  attemptsText,
  type Attempt,
  type BreachRow,
  campaignName,
  useAttempts,
  useSecurityStats,
  VERDICTS,
  type Verdict,
} from "../../api/security/security";
import { ResourceTable } from "../../components/ResourceTable";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "../dashboards/dashboard-paths";
import { RunHeader } from "../dashboards/RunHeader";
import { RunOfKind } from "../dashboards/RunRoute";
import { RunLivePanel } from "../dashboards/RunLivePanel";
import { ExportMenu } from "../dashboards/SenseiRunView";
import { AttemptModal, VerdictBadge } from "./AttemptDetails";
import { securityPaths } from "./security-paths";
import { StateHeatMap } from "./StateHeatMap";

const percent = (share: number) => `${String(Math.round(share * 1000) / 10)}%`;

function Rate({ row }: { row: BreachRow }) {
  if (row.breach_rate === null) return <Text size="sm">—</Text>;
  const [low, high] = row.interval ?? [];
  const interval = low !== undefined && high !== undefined ? ` [${percent(low)}, ${percent(high)}]` : "";
  return (
    <Tooltip label="Breached / (breached + resisted), with the 95% Wilson interval">
      <Text size="sm" fw={row.breached > 0 ? 700 : undefined} c={row.breached > 0 ? "red" : undefined}>
        {`${percent(row.breach_rate)}${interval}`}
      </Text>
    </Tooltip>
  );
}

interface RateTableProps<Row extends BreachRow> {
  rows: Row[];
  /** What a row groups (an attack id, a delivery mode, a state): its first cell. */
  rowKey: (row: Row) => string;
  label: string;
  first: string;
}

function RateTable<Row extends BreachRow>({ rows, rowKey, label, first }: RateTableProps<Row>) {
  return (
    // Beside the heat map the table is narrower than its columns: the scrolled area is reachable from the keyboard.
    <Table.ScrollContainer
      minWidth={680}
      scrollAreaProps={{ viewportProps: { tabIndex: 0, role: "region", "aria-label": `${label}, scrollable` } }}
    >
      <Table withTableBorder striped fz="sm" aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{first}</Table.Th>
            <Table.Th>Attempts</Table.Th>
            {VERDICTS.map((verdict) => (
              <Table.Th key={verdict} tt="capitalize">
                {verdict}
              </Table.Th>
            ))}
            <Table.Th>Breach rate</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)} data-breached={row.breached > 0}>
              <Table.Th scope="row" ff="monospace" fw={500}>
                {rowKey(row)}
              </Table.Th>
              <Table.Td>{row.attempts}</Table.Td>
              {VERDICTS.map((verdict) => (
                <Table.Td key={verdict}>{row[verdict]}</Table.Td>
              ))}
              <Table.Td>
                <Rate row={row} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Attacks({ run }: { run: Run }) {
  const stats = useSecurityStats(run.id, run.progress.done ?? 0);
  if (stats.isPending) return <LoadingState label="Loading the figures" />;
  if (stats.isError) return <ErrorState error={stats.error} title="Could not load the figures" />;
  const { totals, by_attack: byAttack, by_delivery: byDelivery, by_state: byState, tracer_run: tracerRun } = stats.data;
  if (totals.attempts === 0) return <Text c="dimmed">No attempt has finished yet.</Text>;
  return (
    <Stack gap="md">
      <Text size="sm" aria-label="Totals">
        {`${counted(totals.attempts, "attempt")}: ${String(totals.breached)} breached, ${String(
          totals.resisted,
        )} resisted, ${String(totals.inconclusive)} inconclusive, ${String(totals.error)} error. `}
        Inconclusive and error attempts are not counted in a rate, either way.
      </Text>
      <Title order={2} size="h5">
        Per attack
      </Title>
      <RateTable rows={byAttack} rowKey={(row) => row.attack_id} label="Breach rate per attack" first="Attack" />
      <Title order={2} size="h5">
        Per delivery mode
      </Title>
      <RateTable
        rows={byDelivery}
        rowKey={(row) => row.delivery}
        label="Breach rate per delivery mode"
        first="Delivery"
      />
      {byState.length > 0 && (
        <>
          <Title order={2} size="h5">
            Per state of TRACER&apos;s graph
          </Title>
          <Text size="sm" c="dimmed">
            Each attack was sent after replaying the recorded turns that reach the state; a state not reached makes the
            attempt inconclusive.
          </Text>
          <StateHeatMap
            rows={byState}
            tracerRun={tracerRun}
            table={<RateTable rows={byState} rowKey={(row) => row.state} label="Breach rate per state" first="State" />}
          />
        </>
      )}
    </Stack>
  );
}

function Attempts({ run }: { run: Run }) {
  const [page, setPage] = useState(1);
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [open, setOpen] = useState<Attempt | null>(null);
  const attempts = useAttempts(run.id, { page, ...(verdict && { verdict }) }, run.progress.done ?? 0);
  return (
    <Stack gap="sm">
      <Select
        label="Verdict"
        placeholder="All verdicts"
        data={VERDICTS.map((value) => ({ value, label: value }))}
        value={verdict}
        onChange={(value) => {
          setVerdict(VERDICTS.find((v) => v === value) ?? null);
          setPage(1);
        }}
        clearable
        maw={220}
      />
      <ResourceTable
        query={attempts}
        plural="attempts"
        errorTitle="Could not load the attempts"
        noRows={verdict ? `No ${verdict} attempt.` : "No attempt has finished yet."}
        label="Attempts"
        columns={["Attack", "Attempt", "Delivery", "Verdict", "Evidence or reason"]}
        minWidth={820}
        page={page}
        onPageChange={setPage}
        cells={(attempt) => (
          <>
            <Table.Td ff="monospace">{attempt.attack_id}</Table.Td>
            <Table.Td>{attempt.index + 1}</Table.Td>
            <Table.Td>{attempt.delivery}</Table.Td>
            <Table.Td>
              <VerdictBadge verdict={attempt.record.verdict} />
            </Table.Td>
            <Table.Td style={{ overflowWrap: "anywhere" }}>
              {attempt.record.evidence[0] ? (
                <Text size="sm" component="q" fs="italic">
                  {attempt.record.evidence[0].quote}
                </Text>
              ) : (
                <Text size="sm" c="dimmed">
                  {attempt.because}
                </Text>
              )}
            </Table.Td>
          </>
        )}
        actions={(attempt) => (
          <Button
            size="xs"
            variant="light"
            aria-label={`Show ${attempt.attack_id} attempt ${String(attempt.index + 1)}`}
            onClick={() => {
              setOpen(attempt);
            }}
          >
            Show
          </Button>
        )}
      />
      <AttemptModal
        attempt={open}
        onClose={() => {
          setOpen(null);
        }}
      />
    </Stack>
  );
}

export function SecurityRunView({ run, mode }: { run: Run; mode: DashboardMode }) {
  const active = isRunActive(run.status);
  const [picked, setPicked] = useState<string | null>(null);
  const tab = picked ?? (active ? "progress" : "attacks");
  const params = run.params as Record<string, unknown> | null;
  return (
    <Stack gap="md">
      <RunHeader
        run={run}
        mode={mode}
        title={`Campaign run #${String(run.id)}`}
        backTo={
          mode === "public" && run.project
            ? dashboardPaths.publicProject(run.project)
            : run.project
              ? securityPaths.project(run.project)
              : securityPaths.home
        }
        facts={[
          { label: "Campaign", value: campaignName(run) },
          { label: "Attempts", value: attemptsText(run) },
          { label: "Breaches", value: String(run.counters.breached ?? 0) },
          { label: "Seed", value: typeof params?.seed === "number" ? String(params.seed) : "—" },
        ]}
        actions={
          <>
            {!active && run.project !== null && (
              <Button component={Link} to={securityPaths.compare(run.id, mode)} variant="default">
                Compare with another run
              </Button>
            )}
            <ExportMenu runId={run.id} />
          </>
        }
      />
      <Tabs value={tab} onChange={setPicked} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="progress">{active ? "Progress" : "Log"}</Tabs.Tab>
          <Tabs.Tab value="attacks">Attacks</Tabs.Tab>
          <Tabs.Tab value="attempts">Attempts</Tabs.Tab>
        </Tabs.List>
        <Stack pt="md">
          <Tabs.Panel value="progress">
            <RunLivePanel run={run} readOnly={mode === "public"} />
          </Tabs.Panel>
          <Tabs.Panel value="attacks">
            <Attacks run={run} />
          </Tabs.Panel>
          <Tabs.Panel value="attempts">
            <Attempts run={run} />
          </Tabs.Panel>
        </Stack>
      </Tabs>
    </Stack>
  );
}

function SecurityRunRoute({ mode }: { mode: DashboardMode }) {
  const notFound = {
    what: "run",
    backTo: mode === "public" ? dashboardPaths.publicProjects : securityPaths.home,
    backLabel: mode === "public" ? "Back to the public projects" : "Back to the campaigns",
  };
  return (
    <RunOfKind kind="security" title="Campaign run" notFound={notFound}>
      {(run) => <SecurityRunView run={run} mode={mode} />}
    </RunOfKind>
  );
}

export function SecurityRunPage() {
  return <SecurityRunRoute mode="owner" />;
}

export function PublicSecurityRunPage() {
  return <SecurityRunRoute mode="public" />;
}
