/** Loading, error and empty states, the same on every screen. */
import { Alert, Button, Center, Loader, Paper, Stack, Text, Title } from "@mantine/core";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { ApiError } from "../api/errors";

export function LoadingState({ label = "Loading" }: { label?: string }) {
  return (
    <Center py="xl">
      <Loader role="status" aria-label={label} />
    </Center>
  );
}

/** Where to go from something that does not exist (or that this visitor may not see: the API says 404 to both). */
export interface NotFoundTarget {
  /** "run", "project"…: what was asked for. */
  what: string;
  backTo: string;
  backLabel: string;
}

/** A missing page or record: says so plainly and offers a way back, never a dead end or a "try again". */
export function NotFoundState({ what, backTo, backLabel }: NotFoundTarget) {
  return (
    <Paper withBorder p="xl" radius="md" role="region" aria-label="Not found">
      <Stack align="center" gap="xs">
        <Title order={2} size="h4">
          {`This ${what} does not exist`}
        </Title>
        <Text size="sm" c="dimmed" ta="center" maw={520}>
          {`It may have been deleted, or the link may be wrong. If it belongs to someone else, it is only visible to them unless their project is public.`}
        </Text>
        <Button component={Link} to={backTo} variant="light">
          {backLabel}
        </Button>
      </Stack>
    </Paper>
  );
}

export function isNotFound(error: Error | null): boolean {
  return error instanceof ApiError && error.status === 404;
}

export function ErrorState({
  error,
  title,
  onRetry,
  notFound,
}: {
  error: Error | null;
  title: string;
  onRetry?: () => void;
  /** Shown instead when the server answers 404 (or `error` is null: the address itself names nothing). */
  notFound?: NotFoundTarget;
}) {
  if (notFound && (error === null || isNotFound(error))) return <NotFoundState {...notFound} />;
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

/**
 * A screen that stands on one query: its loading state, its error (a 404: `notFound`, where to go instead), then
 * `children` with the data. Without children it is only the wait: `if (!query.isSuccess) return <QueryStates …/>`.
 */
export function QueryStates<T>({
  query,
  what,
  notFound,
  children,
}: {
  query: UseQueryResult<T>;
  /** What is loaded, "the run": "Loading the run", "Could not load the run". */
  what: string;
  notFound?: NotFoundTarget;
  children?: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingState label={`Loading ${what}`} />;
  if (query.isError)
    return (
      <ErrorState
        error={query.error}
        title={`Could not load ${what}`}
        onRetry={() => void query.refetch()}
        notFound={notFound}
      />
    );
  return children?.(query.data) ?? null;
}
