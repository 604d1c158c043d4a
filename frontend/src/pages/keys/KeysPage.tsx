import { Badge, Button, Group, Loader, Stack, Table, Text, Tooltip } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError } from "../../api/errors";
import { type LLMKey, useDeleteKey, useKeysPage, useTestKey } from "../../api/workspace/keys";
import { keyKeys } from "../../api/query-keys";
import { keyCheckOf } from "../../api/runs/run-results";
import { ResourceListPage } from "../../components/ListPage";
import { useFollowedRun } from "../../components/use-followed-run";
import { AddKeyModal } from "./AddKeyModal";
import { QualifyDialog } from "./QualifyDialog";
import { RenameKeyModal } from "./RenameKeyModal";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function LastCheck({ llmKey }: { llmKey: LLMKey }) {
  if (llmKey.last_check_ok === null)
    return (
      <Text size="sm" c="dimmed">
        Not tested yet
      </Text>
    );
  return (
    <Stack gap={2}>
      <Group gap={6}>
        <Badge color={llmKey.last_check_ok ? "teal" : "red"} variant="light">
          {llmKey.last_check_ok ? "works" : "failed"}
        </Badge>
        {llmKey.last_checked_at && (
          <Text size="xs" c="dimmed">
            {dateTime.format(new Date(llmKey.last_checked_at))}
          </Text>
        )}
      </Group>
      {llmKey.last_check_message && (
        <Text size="xs" c="dimmed" lineClamp={2}>
          {llmKey.last_check_message}
        </Text>
      )}
    </Stack>
  );
}

function TestKeyButton({ llmKey }: { llmKey: LLMKey }) {
  const queryClient = useQueryClient();
  const testKey = useTestKey();
  const [runId, setRunId] = useState<number | null>(null);
  const { run, active } = useFollowedRun(runId);
  const reported = useRef<number | null>(null);

  // Once the test run has finished: say how it went, and re-read the keys (their last check changed).
  useEffect(() => {
    if (run === undefined || active || reported.current === run.id) return;
    reported.current = run.id;
    const outcome = keyCheckOf(run);
    notifications.show({
      color: outcome?.ok ? "green" : "red",
      title: outcome?.ok ? `${llmKey.name} works` : `${llmKey.name} did not work`,
      message: (outcome?.message ?? "") || run.error_message || `The test ${run.status}.`,
    });
    void queryClient.invalidateQueries({ queryKey: keyKeys.all });
  }, [run, active, llmKey.name, queryClient]);

  const busy = testKey.isPending || active;
  return (
    <Button
      size="xs"
      variant="light"
      loading={busy}
      loaderProps={{ type: "dots" }}
      aria-label={`Test ${llmKey.name}`}
      onClick={() => {
        testKey.mutate(llmKey.id, {
          onSuccess: (started) => {
            setRunId(started.id);
          },
          onError: (error) => {
            notifications.show({
              color: "red",
              title: "Could not start the test",
              message: error instanceof ApiError ? error.detail : "Something went wrong.",
            });
          },
        });
      }}
    >
      Test
    </Button>
  );
}

export function KeysPage() {
  const [page, setPage] = useState(1);
  const keys = useKeysPage(page);
  const remove = useDeleteKey();
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<LLMKey | null>(null);
  const [qualifying, setQualifying] = useState<LLMKey | null>(null);

  const addButton = (
    <Button
      onClick={() => {
        setAdding(true);
      }}
    >
      Add key
    </Button>
  );

  return (
    <ResourceListPage
      title="LLM keys"
      description="Keys are stored encrypted and used only by background runs; the API never returns them."
      query={keys}
      plural="keys"
      noun="key"
      create={addButton}
      emptyText="Add an API key of OpenAI, Google Gemini or any OpenAI-compatible server. TRACER and SENSEI use it to talk to the LLM."
      remove={remove}
      deleteText={() => "Projects that use this key will have no key until you choose another. This cannot be undone."}
      columns={["Name", "Provider", "Key", "Last test"]}
      minWidth={720}
      cells={(llmKey) => (
        <>
          <Table.Td fw={500}>{llmKey.name}</Table.Td>
          <Table.Td>
            <Text size="sm">{llmKey.provider}</Text>
            {llmKey.base_url && (
              <Text size="xs" c="dimmed">
                {llmKey.base_url}
              </Text>
            )}
          </Table.Td>
          <Table.Td>
            <Tooltip label="Only a masked hint is ever shown">
              <Text size="sm" ff="monospace">
                {llmKey.hint || "—"}
              </Text>
            </Tooltip>
          </Table.Td>
          <Table.Td>
            <LastCheck llmKey={llmKey} />
          </Table.Td>
        </>
      )}
      actions={(llmKey) => (
        <>
          <TestKeyButton llmKey={llmKey} />
          <Button
            size="xs"
            variant="default"
            aria-label={`Rename ${llmKey.name}`}
            onClick={() => {
              setRenaming(llmKey);
            }}
          >
            Rename
          </Button>
          <Button
            size="xs"
            variant="default"
            aria-label={`Qualify models on ${llmKey.name}`}
            onClick={() => {
              setQualifying(llmKey);
            }}
          >
            Qualify models
          </Button>
        </>
      )}
      page={page}
      onPageChange={setPage}
      footer={keys.isFetching && <Loader size="xs" role="status" aria-label="Refreshing" />}
    >
      <AddKeyModal
        opened={adding}
        onClose={() => {
          setAdding(false);
        }}
      />
      {renaming && (
        <RenameKeyModal
          llmKey={renaming}
          onClose={() => {
            setRenaming(null);
          }}
        />
      )}
      {qualifying && (
        <QualifyDialog
          llmKey={qualifying}
          onClose={() => {
            setQualifying(null);
          }}
        />
      )}
    </ResourceListPage>
  );
}
