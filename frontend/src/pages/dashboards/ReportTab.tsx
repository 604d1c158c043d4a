/** A run's Markdown report (TRACER, bench) as a tab, and how an artefact the run never wrote is recognised. */
import { Paper, Text } from "@mantine/core";
import { useArtefact } from "../../api/runs/artefacts";
import { ApiError } from "../../api/errors";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { MarkdownReport } from "./MarkdownReport";

/** The run did not write this artefact (yet): a 404, which is not an error to show. */
export function isMissingArtefact(error: Error | null): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function ReportTab({ runId }: { runId: number }) {
  const report = useArtefact(runId, "report");
  if (report.isPending) return <LoadingState label="Loading the report" />;
  if (isMissingArtefact(report.error)) return <Text c="dimmed">This run wrote no report.</Text>;
  if (report.isError) return <ErrorState error={report.error} title="Could not load the report" />;
  return (
    <Paper withBorder p="md">
      <MarkdownReport text={report.data} />
    </Paper>
  );
}
