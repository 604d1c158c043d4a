/** Live view of GET /api/health/: is the database, the message broker and a worker there? */
import { Alert, Badge, Button, Card, Group, Loader, Stack, Table, Text, Title } from "@mantine/core";
import { useId } from "react";
import { ApiError } from "../../api/errors";
import { HEALTH_REFRESH_MS, type Health, useHealth } from "../../api/account/health";

interface Row {
  name: string;
  ok: boolean;
  detail: string;
}

function rowsOf(health: Health): Row[] {
  const workers = health.workers;
  const online = `${String(workers.count)} online`;
  return [
    { name: "Database", ok: health.database.ok, detail: health.database.detail },
    { name: "Message broker", ok: health.broker.ok, detail: health.broker.detail },
    { name: "Workers", ok: workers.ok, detail: workers.detail ? `${online}: ${workers.detail}` : online },
  ];
}

function errorMessage(error: Error): string {
  return error instanceof ApiError ? error.detail : "The check could not be completed.";
}

export function SystemStatusCard() {
  const titleId = useId();
  const health = useHealth();
  const { data } = health;

  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={titleId}>
      <Group justify="space-between" mb="md">
        <Group gap="sm">
          <Title order={2} size="h4" id={titleId}>
            System status
          </Title>
          {data &&
            (data.status === "ok" ? (
              <Badge color="green" variant="light">
                All systems operational
              </Badge>
            ) : (
              <Badge color="orange" variant="light">
                Degraded
              </Badge>
            ))}
        </Group>
        <Button
          variant="subtle"
          size="xs"
          onClick={() => void health.refetch()}
          loading={health.isFetching}
          disabled={health.isPending}
        >
          Check again
        </Button>
      </Group>

      <Stack gap="sm">
        {health.isPending && <Loader size="sm" role="status" aria-label="Checking the system status" />}
        {health.error && (
          <Alert color="red" variant="light" title="Status check failed">
            {errorMessage(health.error)}
          </Alert>
        )}
        {data && (
          <>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Component</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Detail</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rowsOf(data).map((row) => (
                  <Table.Tr key={row.name}>
                    <Table.Td>{row.name}</Table.Td>
                    <Table.Td>
                      <Badge color={row.ok ? "green" : "red"} variant="dot">
                        {row.ok ? "OK" : "Down"}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        {row.detail}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Text size="xs" c="dimmed">
              Checked at {new Date(health.dataUpdatedAt).toLocaleTimeString()}. Refreshes every{" "}
              {HEALTH_REFRESH_MS / 1000} seconds.
            </Text>
          </>
        )}
      </Stack>
    </Card>
  );
}
