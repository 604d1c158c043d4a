/** The TRACER dashboard: every exploration run, its status, progress, size, findings and cost. */
import { RunsDashboardPage } from "../dashboards/RunsDashboardPage";

export function TracerDashboardPage() {
  return (
    <RunsDashboardPage
      kind="tracer"
      title="TRACER"
      description="Explorations of your chatbots: the functionalities found, the workflow graph, and the profiles generated."
      start="Start one from a project"
      emptyText="A TRACER run talks to your chatbot, infers its workflow and writes test profiles for SENSEI."
    />
  );
}
