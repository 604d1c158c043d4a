/** "Test connection": sends one message through the saved connector (a short run) and shows what came back. */
import { Alert, Button, Group, Loader, Stack, Text, TextInput } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTestConnector } from "../../api/workspace/connectors";
import { connectionTestOf } from "../../api/runs/run-results";
import { runKeys } from "../../api/query-keys";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { useFollowedRun } from "../../components/use-followed-run";
import { ConnectionTestResult } from "./ConnectionTestResult";

export function ConnectionTester({ connectorId }: { connectorId: number }) {
  const testConnector = useTestConnector();
  const [message, setMessage] = useState("Hello");
  const [runId, setRunId] = useState<number | null>(null);
  const { run, active } = useFollowedRun(runId);
  const result = run && !active ? connectionTestOf(run) : null;
  const queryClient = useQueryClient();
  const finishedId = run && !active ? run.id : null;

  // The setup guide counts a connector once a test passed: let it see this one.
  useEffect(() => {
    if (finishedId !== null) void queryClient.invalidateQueries({ queryKey: runKeys.lists });
  }, [finishedId, queryClient]);

  const start = () => {
    testConnector.mutate(
      { id: connectorId, message: message.trim() || "Hello" },
      {
        onSuccess: (started) => {
          setRunId(started.id);
        },
      },
    );
  };

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="xs">
        <TextInput
          label="Test message"
          description="Sent once after the chatbot's greeting. Uses the saved configuration."
          value={message}
          onChange={(event) => {
            setMessage(event.currentTarget.value);
          }}
          style={{ flex: 1, minWidth: 200 }}
        />
        <Button onClick={start} loading={testConnector.isPending || active}>
          Test connection
        </Button>
      </Group>
      <ServerErrorAlert error={testConnector.error} title="Could not start the test" />
      {active && (
        <Group gap="xs" role="status">
          <Loader size="xs" />
          <Text size="sm">Talking to the chatbot…</Text>
        </Group>
      )}
      {run && !active && result === null && (
        <Alert color="red" title="The test did not finish">
          {run.error_message || `The test run ${run.status}.`}
        </Alert>
      )}
      {result && <ConnectionTestResult result={result} onPickButton={setMessage} />}
    </Stack>
  );
}
