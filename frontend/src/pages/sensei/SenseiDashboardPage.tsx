/** The SENSEI dashboard: every simulation run, filtered, sorted and paginated on the server, and pass rates. */
import { Button, Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link } from "react-router";
import { useAllProjects } from "../../api/projects";
import { EmptyState } from "../../components/StateViews";
import { PageHeader } from "../../components/PageHeader";
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsTable } from "../dashboards/RunsTable";

export function SenseiDashboardPage() {
  useDocumentTitle("SENSEI · Parley");
  const projects = useAllProjects();
  return (
    <Stack gap="md">
      <PageHeader
        title="SENSEI"
        description="Simulated conversations with your chatbots: results per profile, transcripts, errors, response times and cost."
      />
      <RunsTable
        kind="sensei"
        mode="owner"
        projects={(projects.data ?? []).map((p) => ({ value: String(p.id), label: p.name }))}
        empty={
          <EmptyState
            title="No SENSEI run yet"
            action={
              <Button component={Link} to="/projects" variant="light">
                Pick profiles in a project
              </Button>
            }
          >
            Select profiles in a project's test center and run them.
          </EmptyState>
        }
      />
      <PassRateCard kind="sensei" mode="owner" />
    </Stack>
  );
}
