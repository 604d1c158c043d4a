/**
 * The TRACER, SENSEI, check and bench run lists: filtered, sorted and paginated on the server (`/api/runs/`),
 * re-read while a row is still running. Filters: project (unless fixed), status, project name search and a creation
 * date range.
 */
import { Anchor, Group, Select, Stack, Table, Text, TextInput, UnstyledButton, VisuallyHidden } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { ReactNode } from "react";
import { useState } from "react";
import { Link } from "react-router";
import { useAllProjects } from "../../api/workspace/projects";
import { readBenchSettings } from "../../api/bench/runs-bench";
import { resultOf, type Run, type RunStatus } from "../../api/runs/runs";
import {
  type DashboardKind,
  documentNames,
  type RunFilters,
  type RunOrdering,
  senseiPassRate,
  useRunsPage,
} from "../../api/runs/runs-dashboard";
import { CostText } from "../../components/CostText";
import { ResourceTable } from "../../components/ResourceTable";
import { EmptyState } from "../../components/StateViews";
import { VerdictCounts } from "../../components/Verdicts";
import { counted } from "../../lib/text";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { formatCount, formatDate, formatPercent, formatPoints, formatSeconds, sessionsTimesTurns } from "./format";
import { RunStatusBadge } from "./RunStatusBadge";

const STATUSES: RunStatus[] = ["queued", "running", "succeeded", "failed", "cancelled"];

/** The accessible name of each kind's table. */
const RUNS_TABLE_LABEL: Record<DashboardKind, string> = {
  tracer: "TRACER runs",
  sensei: "SENSEI runs",
  check: "Check runs",
  bench: "Bench runs",
};

type SortField = "created_at" | "finished_at" | "cost_usd" | "status";

function SortHeader({
  field,
  label,
  ordering,
  onSort,
}: {
  field: SortField;
  label: string;
  ordering: RunOrdering;
  onSort: (ordering: RunOrdering) => void;
}) {
  const active = ordering === field || ordering === `-${field}`;
  const descending = ordering === `-${field}`;
  // Newest, latest and dearest first on the first click; the server sorts status one way only.
  const down: RunOrdering = field === "status" ? "status" : `-${field}`;
  const next: RunOrdering = active && descending ? field : down === ordering ? field : down;
  return (
    <Table.Th aria-sort={active ? (descending ? "descending" : "ascending") : "none"}>
      <UnstyledButton
        onClick={() => {
          onSort(next);
        }}
        fw={700}
        fz="sm"
      >
        {label}
        {active ? (descending ? " ↓" : " ↑") : ""}
        <VisuallyHidden>{`, sort by ${label.toLowerCase()}`}</VisuallyHidden>
      </UnstyledButton>
    </Table.Th>
  );
}

interface Column {
  label: string;
  sort?: SortField;
  cell: (run: Run) => ReactNode;
}

function columnsFor(kind: DashboardKind, mode: DashboardMode): Column[] {
  const link = (run: Run) => (
    <Anchor component={Link} to={dashboardPaths.run(kind, run.id, mode)} fw={600}>
      {`#${String(run.id)}`}
    </Anchor>
  );
  const base: Column[] = [
    { label: "Run", cell: link },
    { label: "Project", cell: (run) => run.project_name ?? "—" },
    { label: "Status", sort: "status", cell: (run) => <RunStatusBadge run={run} /> },
  ];
  const tail: Column[] = [
    { label: "Duration", sort: "finished_at", cell: (run) => formatSeconds(run.duration_seconds) },
    {
      label: "Cost",
      sort: "cost_usd",
      cell: (run) => <CostText usd={run.cost_usd} unpriced={run.usage.unpriced_calls} />,
    },
    { label: "Created", sort: "created_at", cell: (run) => formatDate(run.created_at) },
    { label: "By", cell: (run) => run.owner_name || "—" },
  ];
  if (kind === "tracer") {
    return [
      ...base,
      { label: "Sessions × turns", cell: (run) => sessionsTimesTurns(run.params) },
      { label: "Functionalities", cell: (run) => formatCount(resultOf(run, "tracer")?.functionalities) },
      {
        label: "Profiles",
        cell: (run) => {
          const result = resultOf(run, "tracer");
          return result ? `${String(result.valid_profiles)} / ${String(result.profiles)}` : "—";
        },
      },
      ...tail,
    ];
  }
  if (kind === "bench") {
    return [
      ...base,
      { label: "Bot", cell: (run) => readBenchSettings(run).bot || "—" },
      { label: "Sessions × turns", cell: (run) => sessionsTimesTurns(run.params) },
      {
        label: "Mutants killed",
        cell: (run) => {
          const result = resultOf(run, "bench");
          return result === null ? "—" : `${String(result.killed)} of ${String(result.killed + result.live)}`;
        },
      },
      {
        label: "Live",
        cell: (run) => {
          const live = resultOf(run, "bench")?.live ?? null;
          return (
            <Text size="sm" c={live ? "red" : undefined}>
              {formatCount(live)}
            </Text>
          );
        },
      },
      { label: "Mutation score", cell: (run) => formatPoints(resultOf(run, "bench")?.mutation_score ?? null) },
      { label: "False alarms", cell: (run) => formatPoints(resultOf(run, "bench")?.false_alarm_rate ?? null) },
      ...tail,
    ];
  }
  return [
    ...base,
    {
      label: "Profiles",
      cell: (run) => {
        const names = documentNames(run.params.profiles);
        return (
          <Text size="sm" lineClamp={2} title={names.join(", ")}>
            {names.length === 0 ? "—" : names.join(", ")}
          </Text>
        );
      },
    },
    { label: "Conversations", cell: (run) => formatCount(resultOf(run, "sensei")?.conversations ?? null) },
    {
      // Only a failed verdict is a chatbot fault; runs stored before verdicts show their conversations with errors.
      label: "Verdicts",
      cell: (run) => {
        const s = resultOf(run, "sensei");
        if (s === null) return "—";
        if (s.passed !== null && s.failed !== null)
          return (
            <VerdictCounts passed={s.passed} failed={s.failed} inconclusive={s.inconclusive ?? 0} faults={s.faults} />
          );
        return (
          <Text size="sm" c={s.with_errors ? "red" : undefined}>
            {`${formatCount(s.with_errors)} with errors`}
          </Text>
        );
      },
    },
    { label: "Passed", cell: (run) => formatPercent(senseiPassRate(resultOf(run, "sensei"))) },
    ...tail,
  ];
}

/** The filter by project, over the user's projects (none while there is none). */
function ProjectFilter({ value, onChange }: { value: string | null; onChange: (value: string | null) => void }) {
  const projects = useAllProjects();
  if (!projects.data?.length) return null;
  return (
    <Select
      label="Project"
      placeholder="All projects"
      data={projects.data.map((p) => ({ value: String(p.id), label: p.name }))}
      value={value}
      onChange={onChange}
      clearable
      searchable
      w={220}
    />
  );
}

interface RunsTableProps {
  kind: DashboardKind;
  mode: DashboardMode;
  /** Only this project's runs (the filters by project are then not shown). */
  projectId?: number;
  /** Shown when there is no run at all. */
  empty?: ReactNode;
}

export function RunsTable({ kind, mode, projectId, empty = <EmptyState title="No runs yet" /> }: RunsTableProps) {
  const [page, setPage] = useState(1);
  const [project, setProject] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const [after, setAfter] = useState("");
  const [before, setBefore] = useState("");
  const [ordering, setOrdering] = useState<RunOrdering>("-created_at");
  const [debouncedSearch] = useDebouncedValue(search, 300);

  const filters: RunFilters = {
    kind,
    page,
    project: projectId ?? (project === null ? null : Number(project)),
    status: status as RunStatus | null,
    search: debouncedSearch,
    ordering,
    createdAfter: after || null,
    createdBefore: before || null,
    scope: mode === "public" ? "public" : "mine",
  };
  const runs = useRunsPage(filters);
  const columns = columnsFor(kind, mode);
  const filtered = project !== null || status !== null || debouncedSearch !== "" || after !== "" || before !== "";
  const reset =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setPage(1);
    };

  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        {projectId === undefined && mode === "owner" && <ProjectFilter value={project} onChange={reset(setProject)} />}
        <Select
          label="Status"
          placeholder="Any status"
          data={STATUSES}
          value={status}
          onChange={reset(setStatus)}
          clearable
          w={160}
        />
        {projectId === undefined && (
          <TextInput
            label="Search"
            placeholder="Project name"
            value={search}
            onChange={(event) => {
              reset(setSearch)(event.currentTarget.value);
            }}
            w={200}
          />
        )}
        <TextInput
          type="date"
          label="Created from"
          value={after}
          onChange={(event) => {
            reset(setAfter)(event.currentTarget.value);
          }}
          w={160}
        />
        <TextInput
          type="date"
          label="Created until"
          value={before}
          onChange={(event) => {
            reset(setBefore)(event.currentTarget.value);
          }}
          w={160}
        />
      </Group>
      <ResourceTable
        query={runs}
        plural="runs"
        errorTitle="Could not load the runs"
        empty={filtered ? undefined : empty}
        noRows="No run matches these filters."
        label={RUNS_TABLE_LABEL[kind]}
        columns={columns.map((column) =>
          column.sort ? (
            <SortHeader
              key={column.label}
              field={column.sort}
              label={column.label}
              ordering={ordering}
              onSort={reset(setOrdering)}
            />
          ) : (
            column.label
          ),
        )}
        minWidth={900}
        cells={(run) => columns.map((column) => <Table.Td key={column.label}>{column.cell(run)}</Table.Td>)}
        page={page}
        onPageChange={setPage}
        footer={
          runs.data && (
            <Text size="sm" c="dimmed">
              {counted(runs.data.count, "run")}
            </Text>
          )
        }
      />
    </Stack>
  );
}
