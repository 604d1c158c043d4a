/**
 * One attempt of a campaign: its verdict and reason, the quoted evidence, and the conversation with the quotes
 * highlighted. Every text here was written by the chatbot under test or by an LLM: it is rendered as text nodes
 * (React escapes them), never as HTML or Markdown.
 */
import { Badge, Blockquote, Box, Group, Modal, Paper, Stack, Table, Text, Title } from "@mantine/core";
import { type Attempt, highlightQuotes, type TurnView, type Verdict } from "../../api/security/security";

export const VERDICT_COLORS: Record<Verdict, string> = {
  breached: "red",
  resisted: "teal",
  inconclusive: "yellow",
  error: "gray",
};

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return (
    <Badge color={VERDICT_COLORS[verdict]} variant={verdict === "breached" ? "filled" : "light"}>
      {verdict}
    </Badge>
  );
}

function Turn({ turn, quotes }: { turn: TurnView; quotes: string[] }) {
  const bot = turn.role === "bot";
  return (
    <Paper
      withBorder
      p="xs"
      maw="85%"
      ml={bot ? 0 : "auto"}
      bg={bot ? undefined : "var(--mantine-color-blue-light)"}
      data-phase={turn.phase}
    >
      <Group gap={6} mb={4}>
        <Text size="xs" fw={600}>
          {bot ? "Chatbot" : "User"}
        </Text>
        {turn.phase === "warmup" && (
          <Badge size="xs" variant="filled" color="gray">
            warm-up
          </Badge>
        )}
        {turn.phase === "prefix" && (
          <Badge size="xs" variant="filled" color="violet">
            recorded prefix
          </Badge>
        )}
      </Group>
      <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
        {highlightQuotes(turn.text, quotes).map((piece, index) =>
          piece.quoted ? (
            <Box component="mark" key={index} aria-label="Quoted as evidence">
              {piece.text}
            </Box>
          ) : (
            <Box component="span" key={index}>
              {piece.text}
            </Box>
          ),
        )}
      </Text>
    </Paper>
  );
}

export function AttemptDetails({ attempt }: { attempt: Attempt }) {
  const quotesByTurn = new Map<number, string[]>();
  for (const evidence of attempt.record.evidence) {
    quotesByTurn.set(evidence.turn, [...(quotesByTurn.get(evidence.turn) ?? []), evidence.quote]);
  }
  return (
    <Stack gap="sm">
      <Group gap="xs">
        <VerdictBadge verdict={attempt.record.verdict} />
        <Text size="sm" style={{ overflowWrap: "anywhere" }}>
          {attempt.because}
        </Text>
      </Group>
      {attempt.record.evidence.length > 0 && (
        <Stack gap={4} role="group" aria-label="Evidence">
          <Title order={3} size="h6">
            Evidence, quoted from the chatbot&apos;s reply
          </Title>
          {attempt.record.evidence.map((evidence, index) => (
            <Blockquote
              key={index}
              color="red"
              p="xs"
              cite={`— ${evidence.oracle}`}
              // Mantine fades the citation to 60 %, below the contrast text needs on the dark scheme's red tint.
              styles={{ cite: { opacity: 1, color: "var(--mantine-color-dimmed)" } }}
            >
              <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                {evidence.quote}
              </Text>
            </Blockquote>
          ))}
        </Stack>
      )}
      {attempt.record.notes.filter(Boolean).map((note) => (
        <Text key={note} size="xs" c="dimmed">
          {note}
        </Text>
      ))}
      <Title order={3} size="h6">
        Conversation
      </Title>
      <Stack gap={6} role="group" aria-label="Conversation">
        {attempt.record.transcript.map((turn, index) => (
          <Turn key={index} turn={turn} quotes={quotesByTurn.get(index) ?? []} />
        ))}
      </Stack>
      {attempt.record.findings.length > 0 && (
        <Table withTableBorder fz="xs" aria-label="What each oracle found">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Oracle</Table.Th>
              <Table.Th>Found</Table.Th>
              <Table.Th>Because</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {attempt.record.findings.map((finding, index) => (
              <Table.Tr key={index}>
                <Table.Td ff="monospace">{finding.oracle}</Table.Td>
                <Table.Td>{finding.outcome}</Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>{finding.because}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

export function AttemptModal({ attempt, onClose }: { attempt: Attempt | null; onClose: () => void }) {
  return (
    <Modal
      opened={attempt !== null}
      onClose={onClose}
      size="xl"
      title={attempt ? `${attempt.attack_id}, attempt ${String(attempt.index + 1)} (${attempt.delivery})` : ""}
    >
      {attempt && <AttemptDetails attempt={attempt} />}
    </Modal>
  );
}
