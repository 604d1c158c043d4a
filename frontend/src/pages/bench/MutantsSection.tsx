/**
 * Every mutant the bench ran, filterable by status. Live mutants (a fault no conversation noticed: a gap in the
 * tests) are highlighted; stillborn mutants (they do not load, so they are not counted) are listed apart with
 * their reason.
 */
import { Badge, Code, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import type { BenchBot, BenchMutant, MutantStatus } from "../../api/runs-bench";
import { formatCount } from "../dashboards/format";
import { MUTANT_COLOR, REASON_HELP } from "./bench-text";

type Filter = "all" | Exclude<MutantStatus, "stillborn">;

interface Row extends BenchMutant {
  bot: string;
}

export function MutantStatusBadge({ status }: { status: MutantStatus | null }) {
  return (
    <Badge
      color={status === null ? "gray" : MUTANT_COLOR[status]}
      variant={status === "live" ? "filled" : "light"}
      // A badge truncates its text when its column is narrow; a status must stay readable.
      miw="max-content"
    >
      {status ?? "unknown"}
    </Badge>
  );
}

function Reasons({ mutant }: { mutant: Row }) {
  if (mutant.status === "inconclusive") {
    return (
      <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
        {mutant.error || "No conversation was conclusive."}
      </Text>
    );
  }
  if (mutant.reasons.length === 0) return <Text size="sm">—</Text>;
  return (
    <Group gap={4}>
      {mutant.reasons.map(([reason, count]) => (
        <Badge key={reason} variant="outline" color="gray" tt="none" title={REASON_HELP[reason]} miw="max-content">
          {`${reason} × ${String(count)}`}
        </Badge>
      ))}
    </Group>
  );
}

function MutantRow({ mutant, showBot }: { mutant: Row; showBot: boolean }) {
  const live = mutant.status === "live";
  return (
    <Table.Tr data-status={mutant.status ?? "unknown"} bg={live ? "var(--mantine-color-red-light)" : undefined}>
      {showBot && <Table.Td>{mutant.bot}</Table.Td>}
      <Table.Td>
        <Code>{mutant.id}</Code>
      </Table.Td>
      <Table.Td ff="monospace" fz="xs">
        {mutant.operator}
      </Table.Td>
      <Table.Td>
        <MutantStatusBadge status={mutant.status} />
      </Table.Td>
      <Table.Td>
        <Reasons mutant={mutant} />
      </Table.Td>
      <Table.Td>
        {mutant.rules.length === 0 ? (
          "—"
        ) : (
          <Stack gap={0}>
            {mutant.rules.map(([rule, count]) => (
              <Text key={rule} size="xs" ff="monospace">
                {`${rule} × ${String(count)}`}
              </Text>
            ))}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>
        {mutant.conversations === null
          ? "—"
          : `${formatCount(mutant.killingConversations)} of ${String(mutant.conversations)}`}
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ overflowWrap: "anywhere" }}>
          {mutant.description}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function MutantsSection({ bots }: { bots: BenchBot[] }) {
  const [filter, setFilter] = useState<Filter>("all");
  const rows: Row[] = bots.flatMap((bot) => bot.mutants.map((mutant) => ({ ...mutant, bot: bot.id })));
  const showBot = bots.length > 1;
  const counted = rows.filter((row) => row.status !== "stillborn");
  const stillborn = rows.filter((row) => row.status === "stillborn");
  const count = (status: MutantStatus) => counted.filter((row) => row.status === status).length;
  const shown = filter === "all" ? counted : counted.filter((row) => row.status === filter);
  const columns = showBot ? 8 : 7;

  return (
    <Stack gap="md">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap">
          <Title order={2} size="h4">
            Mutants
          </Title>
          <SegmentedControl
            aria-label="Show mutants"
            value={filter}
            onChange={(value) => {
              setFilter(value);
            }}
            data={[
              { value: "all", label: `All (${String(counted.length)})` },
              { value: "live", label: `Live (${String(count("live"))})` },
              { value: "killed", label: `Killed (${String(count("killed"))})` },
              { value: "inconclusive", label: `Inconclusive (${String(count("inconclusive"))})` },
            ]}
          />
        </Group>
        <Text size="sm" c="dimmed">
          Each mutant is the bot with one injected fault. Killed: a conversation showed it. Live: none did — a gap in
          the tests. Inconclusive: no conversation could tell (LLM or set-up errors).
        </Text>
        <Table.ScrollContainer minWidth={900}>
          <Table withTableBorder fz="sm" aria-label="Mutants">
            <Table.Thead>
              <Table.Tr>
                {showBot && <Table.Th>Bot</Table.Th>}
                <Table.Th>Mutant</Table.Th>
                <Table.Th>Operator</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Reasons</Table.Th>
                <Table.Th>Rules failed</Table.Th>
                <Table.Th>Conversations failing</Table.Th>
                <Table.Th>Fault</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.length === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={columns}>
                    <Text size="sm" c="dimmed">
                      {filter === "all" ? "No mutant ran." : `No ${filter} mutant.`}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {shown.map((mutant) => (
                <MutantRow key={`${mutant.bot}/${mutant.id}`} mutant={mutant} showBot={showBot} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>

      <Stack gap="xs">
        <Title order={3} size="h5">
          Stillborn mutants (not counted)
        </Title>
        {stillborn.length === 0 ? (
          <Text size="sm" c="dimmed">
            None: every selected mutant loaded.
          </Text>
        ) : (
          <Table withTableBorder fz="sm" aria-label="Stillborn mutants">
            <Table.Thead>
              <Table.Tr>
                {showBot && <Table.Th>Bot</Table.Th>}
                <Table.Th>Mutant</Table.Th>
                <Table.Th>Operator</Table.Th>
                <Table.Th>Why it does not load</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {stillborn.map((mutant) => (
                <Table.Tr key={`${mutant.bot}/${mutant.id}`}>
                  {showBot && <Table.Td>{mutant.bot}</Table.Td>}
                  <Table.Td>
                    <Code>{mutant.id}</Code>
                  </Table.Td>
                  <Table.Td ff="monospace" fz="xs">
                    {mutant.operator}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ overflowWrap: "anywhere" }}>
                      {mutant.stillbornReason || mutant.description}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Stack>
  );
}
