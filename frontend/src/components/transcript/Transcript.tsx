/**
 * One SENSEI conversation as a chat transcript, with its variable values, extracted outputs and errors.
 *
 * Everything here was written by the chatbot under test or by an LLM, so it is untrusted. The chatbot's replies are
 * Markdown as chat widgets show it, rendered by `SafeMarkdown` (HTML stays text, links only http(s), no image is
 * loaded); "Raw text" shows exactly what was received instead. Every other text is a React text node (escaped,
 * never parsed as HTML), buttons are shown as buttons, and a button's link is clickable only when it is an http(s)
 * URL — `javascript:`, `data:` and the like are shown as plain text.
 */
import {
  Anchor,
  Badge,
  Box,
  Button,
  Group,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from "@mantine/core";
import { useId, useState } from "react";
import {
  type ConversationRecord,
  type Decision,
  formatValue,
  type JsonValue,
  recordDetails,
  type TranscriptButton,
  type TranscriptTurn,
} from "../../api/runs/conversations";
import { SafeMarkdown } from "../SafeMarkdown";
import { FaultBadge, turnLabel } from "../Verdicts";

/** The URL if it is an absolute http(s) URL, else null. */
export function safeLinkUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function BotButton({ button }: { button: TranscriptButton }) {
  const href = button.url ? safeLinkUrl(button.url) : null;
  if (href !== null) {
    return (
      <Button
        component="a"
        href={href}
        target="_blank"
        rel="noopener noreferrer nofollow"
        size="compact-xs"
        variant="outline"
        title={href}
      >
        {button.label}
      </Button>
    );
  }
  const detail = button.url ? `Link not opened: ${button.url}` : button.value ? `Sends: ${button.value}` : "";
  return (
    <Tooltip label={detail} disabled={detail === ""} multiline maw={360}>
      {/* A picture of the chatbot's button: it is not pressed from here. */}
      <Button component="span" size="compact-xs" variant="outline" color="gray" tabIndex={-1} aria-disabled="true">
        {button.label}
      </Button>
    </Tooltip>
  );
}

interface BubbleProps {
  turn: TranscriptTurn;
  index: number;
  errors: string[];
  raw: boolean;
  /** This turn is the evidence of the verdict: outlined, named so, and the target of the verdict's link. */
  evidence: boolean;
  id?: string;
}

function Bubble({ turn, index, errors, raw, evidence, id }: BubbleProps) {
  const user = turn.role === "user";
  const outlined = evidence || errors.length > 0;
  return (
    <Box
      component="li"
      style={{ display: "flex", justifyContent: user ? "flex-end" : "flex-start", listStyle: "none" }}
      aria-label={`${user ? "Simulated user" : "Chatbot"}, ${turnLabel(index)}${evidence ? ", the evidence" : ""}`}
    >
      <Paper
        id={id}
        tabIndex={evidence ? -1 : undefined}
        data-testid="turn-bubble"
        p="xs"
        radius="md"
        maw="80%"
        bg={user ? "var(--mantine-color-blue-light)" : "var(--mantine-color-default-hover)"}
        withBorder={outlined}
        style={
          outlined ? { borderColor: "var(--mantine-color-red-6)", borderWidth: evidence ? 2 : undefined } : undefined
        }
      >
        <Group gap={6} mb={2}>
          <Text size="xs" fw={700} c={user ? "blue" : "dimmed"}>
            {user ? "User" : "Chatbot"}
          </Text>
          <Text size="xs" c="dimmed">
            {turnLabel(index)}
          </Text>
          {evidence && (
            <Badge size="xs" color="red" variant="light" tt="none">
              Evidence
            </Badge>
          )}
          {turn.latency_s !== null && (
            <Text size="xs" c="dimmed">
              {`${turn.latency_s.toFixed(2)} s`}
            </Text>
          )}
        </Group>
        {user || raw ? (
          <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }} data-testid="turn-text">
            {turn.text}
          </Text>
        ) : (
          <Box data-testid="turn-text" fz="sm">
            <SafeMarkdown text={turn.text} variant="chat" />
          </Box>
        )}
        {turn.buttons.length > 0 && (
          <Group gap={4} mt={6} role="group" aria-label="Buttons offered">
            {turn.buttons.map((button, index) => (
              <BotButton key={`${button.label}-${String(index)}`} button={button} />
            ))}
          </Group>
        )}
        {errors.map((error) => (
          <Text key={error} size="xs" c="red" mt={4}>
            {error}
          </Text>
        ))}
      </Paper>
    </Box>
  );
}

/** The element id of a turn's bubble, for links to it ("turn 4" in the verdict). */
function turnId(prefix: string, index: number): string {
  return `${prefix}-turn-${String(index)}`;
}

/** Chat bubbles for a list of turns (also TRACER's exploration sessions). */
export function ChatTurns({
  turns,
  errorsByTurn,
  label,
  evidenceTurn = null,
  idPrefix,
}: {
  turns: TranscriptTurn[];
  errorsByTurn?: Map<number, string[]>;
  label: string;
  /** The turn that shows the verdict's fault (0-based), highlighted. */
  evidenceTurn?: number | null;
  /** Gives the evidence bubble an id (`turnId`), so that a link can lead to it. */
  idPrefix?: string;
}) {
  const [view, setView] = useState<"formatted" | "raw">("formatted");
  return (
    <Stack gap={6}>
      <SegmentedControl
        size="xs"
        w="fit-content"
        aria-label={`How to show the chatbot's messages in ${label}`}
        value={view}
        onChange={(value) => {
          setView(value === "raw" ? "raw" : "formatted");
        }}
        data={[
          { value: "formatted", label: "Formatted" },
          { value: "raw", label: "Raw text" },
        ]}
      />
      <Stack component="ol" gap={6} m={0} p={0} aria-label={label}>
        {turns.map((turn, index) => (
          <Bubble
            key={index}
            turn={turn}
            index={index}
            errors={errorsByTurn?.get(index) ?? []}
            raw={view === "raw"}
            evidence={index === evidenceTurn}
            id={idPrefix !== undefined && index === evidenceTurn ? turnId(idPrefix, index) : undefined}
          />
        ))}
      </Stack>
    </Stack>
  );
}

/**
 * Named values as a table; with `evidence` (the extracted outputs), each beside the chatbot's words that state it,
 * or why it is missing.
 */
function ValueTable({
  title,
  rows,
  empty,
  evidence,
}: {
  title: string;
  rows: [string, JsonValue][];
  empty: string;
  evidence?: ConversationRecord["evidence"];
}) {
  const quoted = evidence !== undefined && Object.keys(evidence).length > 0;
  return (
    <Stack gap={4}>
      <Title order={4} size="h6">
        {title}
      </Title>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Table fz="xs" withTableBorder aria-label={title}>
          <Table.Tbody>
            {rows.map(([name, value]) => {
              const proof = quoted ? evidence[name] : undefined;
              return (
                <Table.Tr key={name}>
                  <Table.Th w={quoted ? "30%" : "40%"} ff="monospace">
                    {name}
                  </Table.Th>
                  <Table.Td style={{ overflowWrap: "anywhere" }} c={value === null ? "red" : undefined}>
                    {formatValue(value)}
                    {value === null && proof?.reason ? ` (${proof.reason.replace(/_/g, " ")})` : ""}
                  </Table.Td>
                  {quoted && (
                    <Table.Td style={{ overflowWrap: "anywhere" }} c="dimmed" data-testid="output-quote">
                      {proof?.quote
                        ? `“${proof.quote}”${proof.turn !== null ? ` (${turnLabel(proof.turn)})` : ""}`
                        : ""}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

const VERDICT_COLORS = { passed: "green", failed: "red", inconclusive: "gray" } as const;

/** Who is at fault for the verdict and, when a chatbot turn shows it, a link that moves to that turn. */
function FaultLine({ decision, turns, idPrefix }: { decision: Decision; turns: number; idPrefix: string }) {
  if (decision.fault === null) return null;
  const turn = decision.evidence_turn !== null && decision.evidence_turn < turns ? decision.evidence_turn : null;
  return (
    <Group gap={6} align="baseline">
      <Text size="sm" span>
        {"At fault: "}
      </Text>
      <FaultBadge fault={decision.fault} />
      {turn !== null && (
        <Text size="sm" span>
          {"shown in "}
          <Anchor
            href={`#${turnId(idPrefix, turn)}`}
            onClick={(event) => {
              event.preventDefault();
              document.getElementById(turnId(idPrefix, turn))?.focus();
            }}
          >
            {turnLabel(turn)}
          </Anchor>
        </Text>
      )}
    </Group>
  );
}

/** A stored conversation; `decision`, the conversation row's verdict (null: not decided). */
export function Transcript({ record, decision }: { record: ConversationRecord; decision: Decision | null }) {
  const idPrefix = useId();
  const details = recordDetails(record);
  const errorsByTurn = new Map<number, string[]>();
  for (const error of record.errors) {
    if (error.turn === null) continue;
    errorsByTurn.set(error.turn, [...(errorsByTurn.get(error.turn) ?? []), `${String(error.code)} ${error.message}`]);
  }

  return (
    <Stack gap="md">
      {decision !== null && (
        <Stack gap={4} role="region" aria-label="Verdict">
          <Group gap={6} wrap="nowrap" align="baseline">
            <Badge color={VERDICT_COLORS[decision.verdict]} style={{ flexShrink: 0 }}>
              {decision.verdict}
            </Badge>
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              {decision.verdict_reason}
            </Text>
          </Group>
          <FaultLine decision={decision} turns={record.turns.length} idPrefix={idPrefix} />
        </Stack>
      )}
      {record.errors.length > 0 && (
        <Stack gap={4} role="region" aria-label="Errors">
          <Title order={4} size="h6">
            Errors
          </Title>
          {record.errors.map((error, index) => (
            <Group key={`${String(error.code)}-${String(index)}`} gap={6} wrap="nowrap" align="baseline">
              <Badge color="red" variant="light" style={{ flexShrink: 0 }}>
                {`${String(error.code)} ${error.name}`}
              </Badge>
              <Text size="sm" style={{ overflowWrap: "anywhere" }}>
                {error.message}
                {error.turn !== null ? ` (${turnLabel(error.turn)})` : ""}
              </Text>
            </Group>
          ))}
        </Stack>
      )}

      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
        <ValueTable title="Variable values" rows={Object.entries(record.inputs)} empty="No variables." />
        <ValueTable
          title="Extracted outputs"
          rows={Object.entries(record.outputs)}
          empty="No outputs expected."
          evidence={record.evidence}
        />
      </SimpleGrid>

      <Stack gap={4}>
        <Title order={4} size="h6">
          Transcript
        </Title>
        {record.turns.length === 0 ? (
          <Text size="sm" c="dimmed">
            No messages were exchanged.
          </Text>
        ) : (
          <ChatTurns
            turns={record.turns}
            errorsByTurn={errorsByTurn}
            label="Transcript"
            evidenceTurn={decision?.fault ? decision.evidence_turn : null}
            idPrefix={idPrefix}
          />
        )}
      </Stack>

      {details.length > 0 && <ValueTable title="Conversation settings" rows={details} empty="" />}
    </Stack>
  );
}
