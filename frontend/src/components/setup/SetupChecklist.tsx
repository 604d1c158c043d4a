/** The setup checklist: every step with its state and a link to the screen that does it. */
import { Alert, Anchor, Badge, Button, Group, List, Loader, Progress, Stack, Text, ThemeIcon } from "@mantine/core";
import { Link } from "react-router";
import { useSetupProgress } from "./use-setup-progress";

export function SetupChecklist() {
  const { steps, doneCount, next, isPending, isError, refetch } = useSetupProgress();
  if (isPending) return <Loader size="sm" role="status" aria-label="Loading setup progress" />;
  return (
    <Stack gap="md">
      {isError && (
        <Alert color="yellow" title="Some steps could not be checked">
          <Group gap="xs">
            <Text size="sm">The list may be incomplete.</Text>
            <Button size="compact-xs" variant="light" onClick={() => void refetch()}>
              Check again
            </Button>
          </Group>
        </Alert>
      )}
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          {doneCount} of {steps.length} steps done
        </Text>
        <Progress value={(doneCount / steps.length) * 100} aria-label="Setup progress" />
      </Stack>
      <List spacing="md" listStyleType="none" aria-label="Setup steps">
        {steps.map((step, index) => (
          <List.Item
            key={step.id}
            icon={
              <ThemeIcon
                color={step.done ? "teal" : "gray"}
                size={26}
                radius="xl"
                variant={step.done ? "filled" : "light"}
              >
                <Text size="xs" fw={700} aria-hidden>
                  {step.done ? "✓" : String(index + 1)}
                </Text>
              </ThemeIcon>
            }
          >
            <Stack gap={2}>
              <Group gap="xs">
                <Anchor component={Link} to={step.to} fw={500}>
                  {step.title}
                </Anchor>
                <Badge size="xs" color={step.done ? "teal" : next?.id === step.id ? "indigo" : "gray"} variant="light">
                  {step.done ? "done" : next?.id === step.id ? "next" : "to do"}
                </Badge>
              </Group>
              <Text size="sm" c="dimmed">
                {step.description}
              </Text>
              {step.note && (
                <Text size="sm" c="orange">
                  {step.note}
                </Text>
              )}
            </Stack>
          </List.Item>
        ))}
      </List>
      {next === null && (
        <Alert color="teal" title="All set">
          Your workspace is ready. Keep exploring and testing from the test center of your projects.
        </Alert>
      )}
    </Stack>
  );
}
