/**
 * "Shrink this failure" under a failed conversation's transcript (the run's owner only): starts the short `shrink`
 * run, follows it, and shows the shortest script that still fails, its reproduction rate, the pinned profile in
 * the test center and the bug report's downloads. It warns first: shrinking replays real requests.
 */
import { Alert, Anchor, Button, Group, List, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { resultOf } from "../../api/runs/runs";
import { shrinkCheck, shrinkWarnings, useDownloadShrinkReport, useShrinkConversation } from "../../api/runs/shrink";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { useFollowedRun } from "../../components/use-followed-run";
import { paths } from "../../lib/paths";

export function ShrinkPanel({
  runId,
  conversationId,
  projectId,
}: {
  runId: number;
  conversationId: number;
  projectId: number | null;
}) {
  const shrink = useShrinkConversation(runId);
  const [jobId, setJobId] = useState<number | null>(null);
  return (
    <>
      <Group gap="sm" align="center">
        <Button
          variant="light"
          color="red"
          loading={shrink.isPending}
          disabled={jobId !== null}
          onClick={() => {
            shrink.mutate(
              { conversationId },
              {
                onSuccess: (run) => {
                  setJobId(run.id);
                },
              },
            );
          }}
        >
          Shrink this failure
        </Button>
        <Text size="xs" c="dimmed">
          Replays the user turns against the chatbot many times: real requests (orders, bookings).
        </Text>
      </Group>
      {shrink.isError && <ServerErrorAlert error={shrink.error} title="Could not start shrinking" />}
      {jobId !== null && <ShrinkResultView jobId={jobId} projectId={projectId} />}
    </>
  );
}

function ShrinkResultView({ jobId, projectId }: { jobId: number; projectId: number | null }) {
  const { run, active, error } = useFollowedRun(jobId);
  const download = useDownloadShrinkReport();
  if (error) return <ServerErrorAlert error={error} title="Could not follow the shrink run" />;
  if (active || run === undefined)
    return (
      <div role="status" aria-label="Shrinking">
        <Alert color="blue">Shrinking: replaying shorter scripts against the chatbot…</Alert>
      </div>
    );
  if (run.status !== "succeeded")
    return (
      <Alert color="red" role="alert" title="The shrink run did not finish">
        {run.error_message || run.status}
      </Alert>
    );
  const result = resultOf(run, "shrink");
  if (result === null)
    return (
      <Alert color="red" role="alert" title="The shrink run left no result">
        {run.error_message || run.status}
      </Alert>
    );
  const { failed, replays, needed } = result.reproduction;
  const rate = `${String(failed)} of ${String(replays)} replays`;
  if (!result.reproduced)
    return (
      <Alert color="yellow" role="status" title="The failure did not reproduce">
        {`It failed in ${rate} (${String(needed)} needed): nothing was pinned.`}
      </Alert>
    );
  return (
    <div role="status" aria-label="Shrunk failure">
      <Alert
        color="teal"
        title={`Shrunk from ${String(result.original_turns)} to ${String(result.shrunk_turns)} user turn(s)`}
      >
        <Text size="sm">{`Reproduced in ${rate}; fails: ${shrinkCheck(result)}.`}</Text>
        <List size="sm" type="ordered" mt="xs">
          {result.script.map((message, index) => (
            <List.Item key={index}>{message}</List.Item>
          ))}
        </List>
        {result.pinned && projectId !== null && (
          <Text size="sm" mt="xs">
            Pinned as{" "}
            <Anchor component={Link} to={paths.profile(projectId, result.pinned.id)}>
              {result.pinned.name}
            </Anchor>{" "}
            in the{" "}
            <Anchor component={Link} to={paths.testCenter(projectId)}>
              test center
            </Anchor>
            : it runs with no LLM call.
          </Text>
        )}
        <Text size="xs" c="dimmed" mt="xs">
          {`${String(result.chatbot_calls)} chatbot call(s), ${String(result.llm_calls)} LLM call(s).`}
        </Text>
        {shrinkWarnings(result).map((warning) => (
          <Text key={warning} size="xs" c="dimmed">
            {warning}
          </Text>
        ))}
        <Group gap="xs" mt="xs">
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              download.mutate({ runId: jobId, format: "markdown" });
            }}
          >
            Bug report (Markdown)
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={() => {
              download.mutate({ runId: jobId, format: "junit" });
            }}
          >
            JUnit case
          </Button>
        </Group>
        {download.isError && <ServerErrorAlert error={download.error} title="The download failed" />}
      </Alert>
    </div>
  );
}
