/** The TRACER dashboard: every exploration run, its status, progress, size, findings and cost. */
import { Button } from "@mantine/core";
import { Link } from "react-router";
import { ListPage } from "../../components/ListPage";
import { EmptyState } from "../../components/StateViews";
import { RunsTable } from "../dashboards/RunsTable";

export function TracerDashboardPage() {
  return (
    <ListPage
      wide
      title="TRACER"
      description="Explorations of your chatbots: the functionalities found, the workflow graph, and the profiles generated."
    >
      <RunsTable
        kind="tracer"
        mode="owner"
        empty={
          <EmptyState
            title="No TRACER run yet"
            action={
              <Button component={Link} to="/projects" variant="light">
                Start one from a project
              </Button>
            }
          >
            A TRACER run talks to your chatbot, infers its workflow and writes test profiles for SENSEI.
          </EmptyState>
        }
      />
    </ListPage>
  );
}
