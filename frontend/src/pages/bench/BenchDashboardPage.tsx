/** The bench dashboard: every evaluation bench run, and "Start a bench" on a project pointing at a built-in bot. */
import { Button, Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useAllProjects } from "../../api/projects";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState } from "../../components/StateViews";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { RunsTable } from "../dashboards/RunsTable";
import { StartBenchDialog } from "./StartBenchDialog";

export function BenchDashboardPage() {
  useDocumentTitle("Bench · Parley");
  const navigate = useNavigate();
  const projects = useAllProjects();
  const [starting, setStarting] = useState(false);
  const open = () => {
    setStarting(true);
  };
  return (
    <Stack gap="md">
      <PageHeader
        title="Evaluation bench"
        description="How well Parley finds faults: TRACER and SENSEI on a built-in reference bot and on mutants of it with known faults — coverage, mutation score, false alarms and cost."
        actions={<Button onClick={open}>Start a bench</Button>}
      />
      <RunsTable
        kind="bench"
        mode="owner"
        projects={(projects.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
        empty={
          <EmptyState
            title="No bench run yet"
            action={
              <Button variant="light" onClick={open}>
                Start a bench
              </Button>
            }
          >
            A bench needs a project whose connector is one of the built-in reference bots (technology demo): their
            ground truth is what the figures are measured against.
          </EmptyState>
        }
      />
      <StartBenchDialog
        opened={starting}
        onClose={() => {
          setStarting(false);
        }}
        onStarted={(run) => {
          setStarting(false);
          void navigate(dashboardPaths.benchRun(run.id));
        }}
      />
    </Stack>
  );
}
