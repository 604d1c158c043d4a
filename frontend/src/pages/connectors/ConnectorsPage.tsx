import { Badge, Button, Group, Modal, Pagination, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useState } from "react";
import { Link } from "react-router";
import { type Connector, useConnectorsPage, useDeleteConnector } from "../../api/connectors";
import { pageCount } from "../../api/pagination";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { PageHeader } from "../../components/PageHeader";
import { EmptyState, ErrorState, LoadingState } from "../../components/StateViews";
import { paths } from "../../lib/paths";
import { ConnectionTester } from "./ConnectionTester";

function summary(connector: Connector): string {
  const params = connector.params ?? {};
  const shown = ["bot", "base_url", "bot_id", "model"].find((name) => typeof params[name] === "string");
  return shown === undefined ? "" : `${shown}: ${String(params[shown])}`;
}

export function ConnectorsPage() {
  useDocumentTitle("Connectors · Parley");
  const [page, setPage] = useState(1);
  const connectors = useConnectorsPage(page);
  const deleteConnector = useDeleteConnector();
  const [deleting, setDeleting] = useState<Connector | null>(null);
  const [testing, setTesting] = useState<Connector | null>(null);

  const newButton = (
    <Button component={Link} to={paths.newConnector}>
      New connector
    </Button>
  );

  let content;
  if (connectors.isPending) content = <LoadingState label="Loading connectors" />;
  else if (connectors.isError)
    content = (
      <ErrorState
        error={connectors.error}
        title="Could not load your connectors"
        onRetry={() => void connectors.refetch()}
      />
    );
  else if (connectors.data.count === 0)
    content = (
      <EmptyState title="No connectors yet" action={newButton}>
        A connector tells Parley how to reach your chatbot: a Rasa or Taskyto server, 1MillionBot, a LangGraph agent, an
        OpenAI-style endpoint, any JSON-over-HTTP API described in YAML, or one of the built-in demo bots.
      </EmptyState>
    );
  else
    content = (
      <Stack gap="sm">
        <Table.ScrollContainer minWidth={720}>
          <Table striped highlightOnHover verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Technology</Table.Th>
                <Table.Th>Settings</Table.Th>
                <Table.Th>Used by</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {connectors.data.results.map((connector) => (
                <Table.Tr key={connector.id}>
                  <Table.Td>
                    <Text component={Link} to={paths.connector(connector.id)} fw={500} c="inherit" td="underline">
                      {connector.name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light">{connector.technology}</Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed" lineClamp={1}>
                      {summary(connector)}
                    </Text>
                    {connector.secrets_set.length > 0 && (
                      <Text size="xs" c="dimmed">
                        Secrets set: {connector.secrets_set.join(", ")}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{connector.projects.length > 0 ? connector.projects.join(", ") : "—"}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} justify="flex-end" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="light"
                        aria-label={`Test ${connector.name}`}
                        onClick={() => {
                          setTesting(connector);
                        }}
                      >
                        Test
                      </Button>
                      <Button
                        size="xs"
                        variant="default"
                        component={Link}
                        to={paths.connector(connector.id)}
                        aria-label={`Edit ${connector.name}`}
                      >
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        aria-label={`Delete ${connector.name}`}
                        onClick={() => {
                          setDeleting(connector);
                        }}
                      >
                        Delete
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {connectors.data.count > connectors.data.results.length && (
          <Pagination total={pageCount(connectors.data.count)} value={page} onChange={setPage} />
        )}
      </Stack>
    );

  return (
    <Stack gap="lg" maw={1100}>
      <PageHeader
        title="Connectors"
        description="How Parley reaches each chatbot under test. Secret settings are stored encrypted and never shown again."
        actions={connectors.data && connectors.data.count > 0 ? newButton : undefined}
      />
      {content}
      <Modal
        opened={testing !== null}
        onClose={() => {
          setTesting(null);
        }}
        title={`Test ${testing?.name ?? ""}`}
        size="lg"
      >
        {testing && <ConnectionTester connectorId={testing.id} />}
      </Modal>
      <ConfirmDialog
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? "connector"}?`}
        confirmLabel="Delete connector"
        loading={deleteConnector.isPending}
        error={deleteConnector.error}
        onClose={() => {
          setDeleting(null);
          deleteConnector.reset();
        }}
        onConfirm={() => {
          if (deleting === null) return;
          deleteConnector.mutate(deleting.id, {
            onSuccess: () => {
              setDeleting(null);
            },
          });
        }}
      >
        {deleting && deleting.projects.length > 0
          ? `It is used by ${deleting.projects.join(", ")}; change or delete those projects first.`
          : "Its settings and stored secrets are removed. This cannot be undone."}
      </ConfirmDialog>
    </Stack>
  );
}
