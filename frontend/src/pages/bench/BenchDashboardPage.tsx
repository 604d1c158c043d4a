/** The bench dashboard: every evaluation bench run, and "Start a bench" on a project pointing at a built-in bot. */
import { Button } from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { ListPage } from "../../components/ListPage";
import { EmptyState } from "../../components/StateViews";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { RunsTable } from "../dashboards/RunsTable";
import { StartBenchDialog } from "./StartBenchDialog";

export function BenchDashboardPage() {
  const navigate = useNavigate();
  const [starting, setStarting] = useState(false);
  const open = () => {
    setStarting(true);
  };
  return (
    <ListPage
      wide
      title="Evaluation bench"
      documentTitle="Bench"
      description="How well Parley finds faults: TRACER and SENSEI on a built-in reference bot and on mutants of it with known faults — coverage, mutation score, false alarms and cost."
      actions={<Button onClick={open}>Start a bench</Button>}
    >
      <RunsTable
        kind="bench"
        mode="owner"
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
    </ListPage>
  );
}
