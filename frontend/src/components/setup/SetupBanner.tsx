/** A compact line above every screen until setup is complete: how far along, the next step, and a dismiss. */
import { Button, CloseButton, Group, Paper, Progress, Text } from "@mantine/core";
import { Link } from "react-router";
import { useSetupProgress } from "./use-setup-progress";

interface SetupBannerProps {
  onDismiss: () => void;
}

export function SetupBanner({ onDismiss }: SetupBannerProps) {
  const { steps, doneCount, next, isPending } = useSetupProgress();
  if (isPending || next === null) return null;
  return (
    <Paper withBorder p="sm" mb="md" radius="md" component="aside" aria-label="Setup progress">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="nowrap" style={{ flex: 1, minWidth: 220 }}>
          <Text size="sm" fw={500} style={{ whiteSpace: "nowrap" }}>
            Setup {doneCount}/{steps.length}
          </Text>
          <Progress value={(doneCount / steps.length) * 100} style={{ flex: 1, maxWidth: 200 }} aria-hidden />
          <Text size="sm" c="dimmed" truncate>
            Next: {next.title}
          </Text>
        </Group>
        <Group gap="xs" wrap="nowrap">
          <Button size="xs" component={Link} to={next.to}>
            {next.action}
          </Button>
          <CloseButton aria-label="Hide setup progress" onClick={onDismiss} />
        </Group>
      </Group>
    </Paper>
  );
}
