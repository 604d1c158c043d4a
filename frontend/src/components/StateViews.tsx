/** Loading, error and empty states, the same on every screen. */
import { Alert, Button, Center, Loader, Paper, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { ApiError } from "../api/errors";

export function LoadingState({ label = "Loading" }: { label?: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={label} />
    </Center>
  );
}

export function ErrorState({ error, title, onRetry }: { error: Error | null; title: string; onRetry?: () => void }) {
  return (
    <Alert color="red" title={title}>
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{error instanceof ApiError ? error.detail : "Something went wrong. Please try again."}</Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="xs">
        <Text fw={600}>{title}</Text>
        {children && (
          <Text size="sm" c="dimmed" ta="center" maw={520}>
            {children}
          </Text>
        )}
        {action}
      </Stack>
    </Paper>
  );
}
