/**
 * On a SENSEI run's page: whether the run is its project's baseline, the owner's button to make it (or stop it
 * being) the baseline, the way to the comparison with the baseline, and "Re-run against the current chatbot"
 * (replayed from this run's LLM calls; a re-run says how many calls it saved), and the way to the run's coverage
 * map over the project's TRACER graph.
 */
import { Badge, Button } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { replayOf, useProjectBaseline, useRerun, useSetBaseline } from "../../api/runs/compare";
import { isRunActive, type Run } from "../../api/runs/runs";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { dashboardPaths } from "../dashboards/dashboard-paths";
import { comparePath, coveragePath } from "./compare-paths";

export function BaselineActions({ run, mode }: { run: Run; mode: "owner" | "public" }) {
  const setBaseline = useSetBaseline();
  const rerun = useRerun();
  const navigate = useNavigate();
  const baseline = useProjectBaseline(run.project);
  const replay = replayOf(run);
  if (run.project === null || !baseline.data) return null;
  const isBaseline = baseline.data.run === run.id;
  const canChoose = mode === "owner" && run.is_owner && !isRunActive(run.status);
  return (
    <>
      {isBaseline ? (
        <Badge size="lg" variant="light" color="teal">
          Project baseline
        </Badge>
      ) : (
        baseline.data.run !== null && (
          <Button component={Link} to={comparePath(run.id, mode)} variant="light">
            Compare with baseline
          </Button>
        )
      )}
      {!isRunActive(run.status) && (
        <Button component={Link} to={coveragePath(run.id, mode)} variant="light">
          Coverage map
        </Button>
      )}
      {canChoose && (
        <Button
          variant="default"
          loading={setBaseline.isPending}
          onClick={() => {
            setBaseline.mutate({ runId: run.id, baseline: !isBaseline });
          }}
        >
          {isBaseline ? "Stop using as baseline" : "Use as baseline"}
        </Button>
      )}
      {replay && (
        <Badge size="lg" variant="light" color="grape" title={`${String(replay.calls_made)} LLM call(s) made`}>
          {`Replay of #${String(replay.source)}: ${String(replay.calls_saved)} LLM calls saved`}
        </Badge>
      )}
      {canChoose && (
        <Button
          variant="default"
          loading={rerun.isPending}
          title="The same profiles and seed against the chatbot as it is now; the LLM is called only where it answers differently."
          onClick={() => {
            rerun.mutate(run.id, {
              onSuccess: (created) => {
                void navigate(dashboardPaths.run("sensei", created.id));
              },
            });
          }}
        >
          Re-run against the current chatbot
        </Button>
      )}
      {setBaseline.isError && <ServerErrorAlert error={setBaseline.error} title="Could not change the baseline" />}
      {rerun.isError && <ServerErrorAlert error={rerun.error} title="Could not start the re-run" />}
    </>
  );
}
