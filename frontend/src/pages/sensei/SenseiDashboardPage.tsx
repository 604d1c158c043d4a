/** The SENSEI dashboard: every simulation run, filtered, sorted and paginated on the server, and pass rates. */
import { PassRateCard } from "../dashboards/PassRateCard";
import { RunsDashboardPage } from "../dashboards/RunsDashboardPage";

export function SenseiDashboardPage() {
  return (
    <RunsDashboardPage
      kind="sensei"
      title="SENSEI"
      description="Simulated conversations with your chatbots: results per profile, transcripts, errors, response times and cost."
      start="Pick profiles in a project"
      emptyText="Select profiles in a project's test center and run them."
    >
      <PassRateCard kind="sensei" mode="owner" />
    </RunsDashboardPage>
  );
}
