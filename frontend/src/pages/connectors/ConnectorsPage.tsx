import { Badge, Button, Modal, Table, Text } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { type Connector, useConnectorsPage, useDeleteConnector } from "../../api/workspace/connectors";
import { ResourceListPage } from "../../components/ListPage";
import { paths } from "../../lib/paths";
import { ConnectionTester } from "./ConnectionTester";

function summary(connector: Connector): string {
  const params = connector.params ?? {};
  const shown = ["bot", "base_url", "bot_id", "model"].find((name) => typeof params[name] === "string");
  return shown === undefined ? "" : `${shown}: ${String(params[shown])}`;
}

export function ConnectorsPage() {
  const [page, setPage] = useState(1);
  const connectors = useConnectorsPage(page);
  const remove = useDeleteConnector();
  const [testing, setTesting] = useState<Connector | null>(null);

  const newButton = (
    <Button component={Link} to={paths.newConnector}>
      New connector
    </Button>
  );

  return (
    <ResourceListPage
      title="Connectors"
      description="How Parley reaches each chatbot under test. Secret settings are stored encrypted and never shown again."
      query={connectors}
      plural="connectors"
      noun="connector"
      create={newButton}
      emptyText="A connector tells Parley how to reach your chatbot: a Rasa or Taskyto server, 1MillionBot, a LangGraph agent, an OpenAI-style endpoint, any JSON-over-HTTP API described in YAML, or one of the built-in demo bots."
      remove={remove}
      deleteText={(connector) =>
        connector.projects.length > 0
          ? `It is used by ${connector.projects.join(", ")}; change or delete those projects first.`
          : "Its settings and stored secrets are removed. This cannot be undone."
      }
      columns={["Name", "Technology", "Settings", "Used by"]}
      minWidth={720}
      cells={(connector) => (
        <>
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
        </>
      )}
      actions={(connector) => (
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
      )}
      editPath={(connector) => paths.connector(connector.id)}
      page={page}
      onPageChange={setPage}
    >
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
    </ResourceListPage>
  );
}
