/**
 * The top of a run page: title, status, who and when, the key numbers, and the owner's actions (delete, with a
 * confirmation; cancel lives in the progress panel). Read-only visitors see no action.
 */
import { Anchor, Box, Button, Group, Paper, SimpleGrid, Text } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { Link, useNavigate } from "react-router";
import { isRunActive, type Run } from "../../api/runs/runs";
import { useDeleteRun } from "../../api/runs/runs-dashboard";
import { CostText } from "../../components/CostText";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { PageHeader } from "../../components/PageHeader";
import { dashboardPaths, type DashboardMode } from "./dashboard-paths";
import { formatDate, formatSeconds } from "./format";
import { RunStatusBadge } from "./RunStatusBadge";

export interface RunFact {
  label: string;
  value: ReactNode;
}

interface RunHeaderProps {
  run: Run;
  title: string;
  mode: DashboardMode;
  /** Where to go after the run is deleted. */
  backTo: string;
  facts: RunFact[];
  actions?: ReactNode;
}

export function RunHeader({ run, title, mode, backTo, facts, actions }: RunHeaderProps) {
  const navigate = useNavigate();
  const remove = useDeleteRun();
  const [confirm, setConfirm] = useState(false);
  const canEdit = mode === "owner" && run.is_owner;
  const projectLink =
    run.project === null
      ? null
      : mode === "public"
        ? dashboardPaths.publicProject(run.project)
        : dashboardPaths.testCenter(run.project);

  const common: RunFact[] = [
    { label: "Status", value: <RunStatusBadge run={run} /> },
    {
      label: "Project",
      value:
        projectLink === null ? (
          "—"
        ) : (
          <Anchor component={Link} to={projectLink} size="sm">
            {run.project_name ?? `#${String(run.project)}`}
          </Anchor>
        ),
    },
    { label: "Started by", value: run.owner_name || "—" },
    { label: "Created", value: formatDate(run.created_at) },
    { label: "Duration", value: formatSeconds(run.duration_seconds) },
    { label: "Cost", value: <CostText fw={500} usd={run.cost_usd} unpriced={run.usage.unpriced_calls} /> },
  ];

  return (
    <>
      <PageHeader
        title={title}
        description={mode === "public" ? "A public project's run: read-only." : undefined}
        actions={
          <>
            {actions}
            {canEdit && (
              <Button
                color="red"
                variant="light"
                disabled={isRunActive(run.status)}
                title={isRunActive(run.status) ? "Cancel the run before deleting it." : undefined}
                onClick={() => {
                  setConfirm(true);
                }}
              >
                Delete run
              </Button>
            )}
          </>
        }
      />
      <Paper withBorder p="sm">
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm">
          {[...common, ...facts].map((fact) => (
            <Box key={fact.label}>
              <Text size="xs" c="dimmed">
                {fact.label}
              </Text>
              {typeof fact.value === "string" ? (
                <Text size="sm" fw={500}>
                  {fact.value}
                </Text>
              ) : (
                fact.value
              )}
            </Box>
          ))}
        </SimpleGrid>
      </Paper>
      {run.status === "failed" && (run.error_type || run.error_message) && (
        <Paper withBorder p="sm" bg="var(--mantine-color-red-light)">
          <Group gap="xs">
            <Text fw={600} size="sm">
              {run.error_type || "The run failed"}
            </Text>
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              {run.error_message}
            </Text>
          </Group>
        </Paper>
      )}
      <ConfirmDialog
        opened={confirm}
        title={`Delete run #${String(run.id)}?`}
        confirmLabel="Delete run"
        loading={remove.isPending}
        error={remove.error}
        onClose={() => {
          setConfirm(false);
        }}
        onConfirm={() => {
          remove.mutate(run.id, {
            onSuccess: () => {
              setConfirm(false);
              void navigate(backTo);
            },
          });
        }}
      >
        Its log, results and artefacts are deleted too. Profiles it generated stay in the project.
      </ConfirmDialog>
    </>
  );
}
