/**
 * Every mutant the bench ran, filterable by status. Live mutants (a fault no conversation noticed: a gap in the
 * tests) are highlighted; stillborn mutants (they do not load, so they are not counted) are listed apart with
 * their reason. Kills are differential: each killing signature shows how many repeats showed it on the mutant
 * and on the original (always 0 there).
 */
import { Badge, Code, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import {
  type BotReport,
  KILL_REASONS,
  type MutantResult,
  type MutantStatus,
  orderedCounts,
} from "../../api/bench/runs-bench";
import { formatCount } from "../dashboards/format";
import { formatSignature, MUTANT_COLOR, REASON_HELP } from "./bench-text";

type Filter = "all" | Exclude<MutantStatus, "stillborn">;

interface Row extends MutantResult {
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
        {mutant.error ?? "No conversation was conclusive."}
      </Text>
    );
  }
  const reasons = orderedCounts(mutant.reasons, KILL_REASONS);
  if (reasons.length === 0) return <Text size="sm">—</Text>;
  return (
    <Group gap={4}>
      {reasons.map(([reason, count]) => (
        <Badge key={reason} variant="outline" color="gray" tt="none" title={REASON_HELP[reason]} miw="max-content">
          {`${reason} × ${String(count)}`}
        </Badge>
      ))}
    </Group>
  );
}

function KillingSignatures({ mutant }: { mutant: Row }) {
  const killing = mutant.kills.filter((kill) => kill.kills);
  if (killing.length === 0) return <Text size="sm">—</Text>;
  return (
    <Stack gap={0}>
      {killing.map((kill) => (
        <Text key={formatSignature(kill.signature)} size="xs" ff="monospace" title={kill.evidence}>
          {`${formatSignature(kill.signature)} (${formatCount(kill.mutant_count)}/${formatCount(mutant.repeats)}, original 0)`}
        </Text>
      ))}
    </Stack>
  );
}

function MutantRow({ mutant, showBot }: { mutant: Row; showBot: boolean }) {
  const live = mutant.status === "live";
  const rules = orderedCounts(mutant.rules);
  return (
    <Table.Tr data-status={mutant.status} bg={live ? "var(--mantine-color-red-light)" : undefined}>
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
        {rules.length === 0 ? (
          "—"
        ) : (
          <Stack gap={0}>
            {rules.map(([rule, count]) => (
              <Text key={rule} size="xs" ff="monospace">
                {`${rule} × ${String(count)}`}
              </Text>
            ))}
          </Stack>
        )}
      </Table.Td>
      <Table.Td>{mutant.killed_automatic ? "killed" : "not killed"}</Table.Td>
      <Table.Td>
        <KillingSignatures mutant={mutant} />
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ overflowWrap: "anywhere" }}>
          {mutant.description}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

export function MutantsSection({ bots }: { bots: BotReport[] }) {
  const [filter, setFilter] = useState<Filter>("all");
  const rows: Row[] = bots.flatMap((bot) => bot.mutation.mutants.map((mutant) => ({ ...mutant, bot: bot.bot })));
  const showBot = bots.length > 1;
  const counted = rows.filter((row) => row.status !== "stillborn");
  const stillborn = rows.filter((row) => row.status === "stillborn");
  const count = (status: MutantStatus) => counted.filter((row) => row.status === status).length;
  const shown = filter === "all" ? counted : counted.filter((row) => row.status === filter);
  const columns = showBot ? 9 : 8;

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
          Each mutant is the bot with one injected fault, run with the original&apos;s seeds. Killed: a conversation
          showed a finding the original never showed in the same conversation. Live: none did — a gap in the tests.
          Inconclusive: no conversation could tell (LLM or set-up errors). Automatic: killed without the ground-truth
          rules.
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
                <Table.Th>Automatic</Table.Th>
                <Table.Th>Killing signatures (mutant/repeats)</Table.Th>
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
                      {mutant.stillborn_reason ?? mutant.description}
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
