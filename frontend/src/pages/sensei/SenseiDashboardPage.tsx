/** The SENSEI dashboard: every simulation run, filtered, sorted and paginated on the server, and pass rates. */
import { Button } from "@mantine/core";
import { Link } from "react-router";
import { ListPage } from "../../components/ListPage";
import { EmptyState } from "../../components/StateViews";
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsTable } from "../dashboards/RunsTable";

export function SenseiDashboardPage() {
  return (
    <ListPage
      wide
      title="SENSEI"
      description="Simulated conversations with your chatbots: results per profile, transcripts, errors, response times and cost."
    >
      <RunsTable
        kind="sensei"
        mode="owner"
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
    </ListPage>
  );
}
