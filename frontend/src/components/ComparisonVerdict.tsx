/**
 * The verdict of a comparison of two runs (SENSEI pass rates or security breach rates): the verdict, a link to
 * the run compared against, why, and the notes — one shape for every compare page.
 */
import { Alert, Anchor, Badge, Group, List, Text } from "@mantine/core";
import { Link } from "react-router";
import { type ComparisonVerdict as Verdict, VERDICT_COLORS } from "../api/runs/compare";

interface ComparisonVerdictProps {
  verdict: Verdict;
  /** "against the baseline ", "against " — what comes before the link. */
  against: string;
  baselineRun: number;
  baselineTo: string;
  reasons: readonly string[];
  notes: readonly string[];
  /** What to say when there is no reason, e.g. "No pass rate moved by the threshold or more." */
  nothingMoved: string;
}

export function ComparisonVerdict({
  verdict,
  against,
  baselineRun,
  baselineTo,
  reasons,
  notes,
  nothingMoved,
}: ComparisonVerdictProps) {
  return (
    <Alert
      color={VERDICT_COLORS[verdict]}
      title={
        <Group gap="xs">
          <Badge size="lg" color={VERDICT_COLORS[verdict]} data-testid="verdict">
            {verdict}
          </Badge>
          <Text span>
            {against}
            <Anchor component={Link} to={baselineTo}>
              {`run #${String(baselineRun)}`}
            </Anchor>
          </Text>
        </Group>
      }
    >
      {reasons.length > 0 ? (
        <List size="sm" spacing={2} aria-label="Why">
          {reasons.map((reason) => (
            <List.Item key={reason}>{reason}</List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm">{nothingMoved}</Text>
      )}
      {notes.map((note) => (
        <Text key={note} size="xs" c="dimmed" mt={4}>
          {note}
        </Text>
      ))}
    </Alert>
  );
}
