/**
 * SENSEI verdicts where users look (`engine/sensei/verdicts.py`): only `failed` is a chatbot fault; an
 * `inconclusive` conversation says nothing about the chatbot and is shown apart, with its reason.
 */
import { Badge, Group, Stack, Text } from "@mantine/core";

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

/** A run's verdict counts side by side: "2 passed", "1 failed", "3 inconclusive". */
export function VerdictCounts({
  passed,
  failed,
  inconclusive,
}: {
  passed: number;
  failed: number;
  inconclusive: number;
}) {
  const counts: [Verdict, number][] = [
    ["passed", passed],
    ["failed", failed],
    ["inconclusive", inconclusive],
  ];
  return (
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
}
