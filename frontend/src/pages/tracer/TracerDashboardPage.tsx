/** The TRACER dashboard: every exploration run, its status, progress, size, findings and cost. */
import { Button, Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link } from "react-router";
import { useAllProjects } from "../../api/projects";
import { EmptyState } from "../../components/StateViews";
import { PageHeader } from "../../components/PageHeader";
import { RunsTable } from "../dashboards/RunsTable";

export function TracerDashboardPage() {
  useDocumentTitle("TRACER · Parley");
  const projects = useAllProjects();
  return (
    <Stack gap="md">
      <PageHeader
        title="TRACER"
        description="Explorations of your chatbots: the functionalities found, the workflow graph, and the profiles generated."
      />
      <RunsTable
        kind="tracer"
        mode="owner"
        projects={(projects.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
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
    </Stack>
  );
}
