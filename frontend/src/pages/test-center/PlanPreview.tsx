/** The conversations a saved profile will run: one row per conversation with its variable values, and a cost. */
import { Alert, Button, Group, NumberInput, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { usePlanProfile } from "../../api/workspace/profiles";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { noun } from "../../lib/text";

const MAX_ROWS_SHOWN = 200;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

interface PlanPreviewProps {
  projectId: number;
  profileId: number | null;
  /** Why planning is not possible right now (unsaved changes, errors), or null. */
  blockedBecause: string | null;
}

export function PlanPreview({ projectId, profileId, blockedBecause }: PlanPreviewProps) {
  const plan = usePlanProfile();
  const [seed, setSeed] = useState<number | string>("");
  const result = plan.data;
  const columns = result ? [...new Set(result.rows.flatMap((row) => Object.keys(row)))] : [];

  return (
    <Stack gap="sm" component="section" aria-labelledby="plan-title">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Title order={2} size="h4" id="plan-title">
          Plan
        </Title>
        <Group gap="xs" align="flex-end">
          <NumberInput
            label="Seed"
            size="xs"
            w={120}
            allowDecimal={false}
            value={seed}
            onChange={setSeed}
            placeholder="random"
          />
          <Button
            size="xs"
            disabled={profileId === null || blockedBecause !== null}
            loading={plan.isPending}
            onClick={() => {
              if (profileId === null) return;
              plan.mutate({ projectId, id: profileId, seed: seed === "" ? null : Number(seed) });
            }}
          >
            Preview plan
          </Button>
        </Group>
      </Group>
      {blockedBecause !== null && (
        <Text size="sm" c="dimmed">
          {blockedBecause}
        </Text>
      )}
      <ServerErrorAlert error={plan.error} title="Could not plan this profile" />
      {result && (
        <Stack gap="xs" aria-live="polite">
          <Group gap="lg">
            <Text size="sm">
              <strong>{result.conversations}</strong> {noun(result.conversations, "conversation")}
            </Text>
            <Text size="sm">Seed {result.seed}</Text>
            <Text size="sm">
              Estimated cost:{" "}
              <strong>
                {result.estimated_cost_usd === null ? "unknown" : `$${result.estimated_cost_usd.toFixed(4)}`}
              </strong>
            </Text>
          </Group>
          {result.rows.length === 0 || columns.length === 0 ? (
            <Alert color="gray" variant="light">
              This profile has no variables: every conversation pursues the same goals.
            </Alert>
          ) : (
            <Table.ScrollContainer minWidth={Math.min(1200, 120 * (columns.length + 1))} mah={360}>
              <Table striped withTableBorder verticalSpacing={4} fz="sm" aria-label="Planned conversations">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>#</Table.Th>
                    {columns.map((column) => (
                      <Table.Th key={column}>{column}</Table.Th>
                    ))}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.rows.slice(0, MAX_ROWS_SHOWN).map((row, index) => (
                    <Table.Tr key={index}>
                      <Table.Td>{index + 1}</Table.Td>
                      {columns.map((column) => (
                        <Table.Td key={column}>{cell(row[column])}</Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
          {result.rows.length > MAX_ROWS_SHOWN && (
            <Text size="xs" c="dimmed">
              Showing the first {MAX_ROWS_SHOWN} of {result.rows.length} rows.
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}
