/**
 * SENSEI verdicts where users look (`engine/sensei/verdicts.py`): only `failed` is a chatbot fault; an
 * `inconclusive` conversation says nothing about the chatbot and is shown apart, with its reason and who is at
 * fault (the simulated user, Parley's model, the infrastructure, the test setup).
 */
import { Badge, Group, Stack, Text } from "@mantine/core";
import { type Fault, FAULTS } from "../api/runs/faults";

export type Verdict = "passed" | "failed" | "inconclusive";

export const VERDICTS: Verdict[] = ["passed", "failed", "inconclusive"];

export const VERDICT_COLOR: Record<Verdict, string> = { passed: "teal", failed: "red", inconclusive: "gray" };

/** "inputs_not_conveyed: the size was never said" → "inputs not conveyed: the size was never said". */
export function readableReason(reason: string): string {
  const [code = "", ...rest] = reason.split(":");
  const text = rest.join(":").trim();
  const name = code.trim().replace(/_/g, " ");
  return text ? `${name}: ${text}` : name;
}

/** Who is at fault, in the words a QA engineer uses (the one place for these labels). */
export const FAULT_LABEL: Record<Fault, string> = {
  chatbot: "Chatbot",
  simulated_user: "Simulated user",
  parley_llm: "Parley's model",
  infrastructure: "Infrastructure",
  test_setup: "Test setup",
};

/** A transcript turn as people count them (from 1): index 3 is "turn 4", wherever a turn is named. */
export function turnLabel(index: number): string {
  return `turn ${String(index + 1)}`;
}

/** Who is at fault, as a badge: red for the chatbot, grey for what says nothing about it. */
export function FaultBadge({ fault }: { fault: Fault }) {
  return (
    <Badge color={fault === "chatbot" ? "red" : "gray"} variant="light" tt="none" w="fit-content">
      {FAULT_LABEL[fault]}
    </Badge>
  );
}

/** A conversations-list cell: who is at fault and the chatbot turn that shows it; empty when none is known. */
export function FaultCell({ fault, evidenceTurn }: { fault: Fault | null; evidenceTurn: number | null }) {
  if (fault === null) return null;
  return (
    <Stack gap={2}>
      <FaultBadge fault={fault} />
      {evidenceTurn !== null && (
        <Text size="xs" c="dimmed">
          {`shown in ${turnLabel(evidenceTurn)}`}
        </Text>
      )}
    </Stack>
  );
}

/** "Simulated user 2 · Parley's model 1": who is at fault for the inconclusive conversations of a run. */
export function inconclusiveFaults(faults: Readonly<Record<string, number>>): string {
  return FAULTS.filter((fault) => fault !== "chatbot" && (faults[fault] ?? 0) > 0)
    .map((fault) => `${FAULT_LABEL[fault]} ${String(faults[fault] ?? 0)}`)
    .join(" · ");
}

/** One conversation's verdict; the reason under it unless it passed. */
export function VerdictCell({ verdict, reason }: { verdict: Verdict; reason: string }) {
  return (
    <Stack gap={2}>
      <Badge color={VERDICT_COLOR[verdict]} variant="light" w="fit-content">
        {verdict}
      </Badge>
      {verdict !== "passed" && reason && (
        <Text size="xs" c="dimmed" lineClamp={2} title={readableReason(reason)}>
          {readableReason(reason)}
        </Text>
      )}
    </Stack>
  );
}

/**
 * A run's verdict counts side by side: "2 passed", "1 failed", "3 inconclusive"; with `faults` (runs since verdicts
 * with proof), a caption says who is at fault for the inconclusive ones.
 */
export function VerdictCounts({
  passed,
  failed,
  inconclusive,
  faults = null,
}: {
  passed: number;
  failed: number;
  inconclusive: number;
  faults?: Readonly<Record<string, number>> | null;
}) {
  const counts: [Verdict, number][] = [
    ["passed", passed],
    ["failed", failed],
    ["inconclusive", inconclusive],
  ];
  const others = inconclusive > 0 && faults !== null ? inconclusiveFaults(faults) : "";
  const line = (
    <Group gap={4} wrap="nowrap">
      {counts.map(([verdict, count]) => (
        <Text
          key={verdict}
          size="sm"
          fw={verdict === "failed" && count > 0 ? 600 : undefined}
          c={verdict === "failed" && count > 0 ? "red" : undefined}
          span
        >
          {`${String(count)} ${verdict}`}
          {verdict !== "inconclusive" ? " ·" : ""}
        </Text>
      ))}
    </Group>
  );
  if (others === "") return line;
  return (
    <Stack gap={0}>
      {line}
      <Text size="xs" c="dimmed">{`Inconclusive, at fault: ${others}`}</Text>
    </Stack>
  );
}
