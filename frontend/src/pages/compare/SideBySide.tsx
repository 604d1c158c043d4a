/**
 * A newly failing conversation next to the same planned conversation in the baseline: both transcripts, read from
 * each run by record id and shown with the shared transcript component.
 */
import { Alert, Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import type { ComparedBrief, ComparedMatch } from "../../api/runs/compare";
import { useConversation, useFoundConversation } from "../../api/runs/conversations";
import { ErrorState, LoadingState } from "../../components/StateViews";
import { Transcript } from "../../components/transcript/Transcript";

/** The repeat to show: the first failing one on the run's side, the first passing one on the baseline's. */
export function pick(briefs: ComparedBrief[], wanted: "passed" | "failed"): ComparedBrief | null {
  return briefs.find((b) => b.verdict === wanted) ?? briefs[0] ?? null;
}

function OneSide({ title, runId, brief }: { title: string; runId: number; brief: ComparedBrief | null }) {
  const found = useFoundConversation([runId], brief?.id ?? null);
  const conversationId = found.data?.conversationId ?? null;
  const conversation = useConversation(runId, conversationId);
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Title order={3} size="h5">
            {title}
          </Title>
          {brief && (
            <Badge color={brief.verdict === "failed" ? "red" : brief.verdict === "passed" ? "green" : "yellow"}>
              {brief.verdict}
            </Badge>
          )}
        </Group>
        {brief === null && <Text c="dimmed">Not in this run.</Text>}
        {brief?.reason && (
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            {brief.reason}
          </Text>
        )}
        {found.isPending && brief !== null && <LoadingState label="Finding the conversation" />}
        {found.isError && <ErrorState error={found.error} title="Could not find the conversation" />}
        {found.data === null && <Alert color="gray">This conversation is no longer stored.</Alert>}
        {conversation.isError && <ErrorState error={conversation.error} title="Could not load the conversation" />}
        {conversation.data && <Transcript record={conversation.data.record} decision={conversation.data} />}
      </Stack>
    </Paper>
  );
}

export function SideBySide({ match, runId, baselineId }: { match: ComparedMatch; runId: number; baselineId: number }) {
  return (
    <section aria-label="Side-by-side transcripts">
      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
        <OneSide
          title={`Baseline (run #${String(baselineId)})`}
          runId={baselineId}
          brief={pick(match.baseline, "passed")}
        />
        <OneSide title={`This run (#${String(runId)})`} runId={runId} brief={pick(match.run, "failed")} />
      </SimpleGrid>
    </section>
  );
}
