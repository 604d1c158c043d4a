/**
 * The list screens of the workspace (keys, connectors, projects, rules) share one shape: a page of rows with the
 * loading, error and empty states, actions at the end of each row, and a delete that asks first. The screen
 * keeps what is its own: the columns, the buttons and the words of the confirmation.
 */
import { Button, type ButtonProps, Group, Pagination, Stack, Table, VisuallyHidden } from "@mantine/core";
import type { UseMutationResult, UseQueryResult } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { type Page, pageCount } from "../api/pagination";
import { ErrorState, LoadingState } from "./StateViews";

interface ResourceTableProps<T extends { id: number }> {
  /** One page of the list, as the API answers it. */
  query: UseQueryResult<Page<T>>;
  /** What the rows are, in the plural: "keys" reads "Loading keys" and "Could not load your keys". */
  plural: string;
  /** Shown instead of the table when there is nothing yet. */
  empty: ReactNode;
  /** Headers of the columns `cells` renders; the actions column comes last and has no visible header. */
  columns: string[];
  /** Where the table scrolls sideways rather than squeezing its columns. */
  minWidth: number;
  cells: (row: T) => ReactNode;
  actions: (row: T) => ReactNode;
  page: number;
  onPageChange: (page: number) => void;
  /** Under the table, e.g. a sign that the list is being read again. */
  footer?: ReactNode;
}

export function ResourceTable<T extends { id: number }>({
  query,
  plural,
  empty,
  columns,
  minWidth,
  cells,
  actions,
  page,
  onPageChange,
  footer,
}: ResourceTableProps<T>) {
  if (query.isPending) return <LoadingState label={`Loading ${plural}`} />;
  if (query.isError)
    return (
      <ErrorState error={query.error} title={`Could not load your ${plural}`} onRetry={() => void query.refetch()} />
    );
  if (query.data.count === 0) return empty;
  const { count, results } = query.data;
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) => (
                <Table.Th key={column}>{column}</Table.Th>
              ))}
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.map((row) => (
              <Table.Tr key={row.id}>
                {cells(row)}
                <Table.Td>
                  <Group gap={6} justify="flex-end" wrap="nowrap">
                    {actions(row)}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {count > results.length && (
        <Pagination total={pageCount(count)} value={page} onChange={onPageChange} aria-label="Pages" />
      )}
      {footer}
    </Stack>
  );
}

/** The red "Delete" of a row; its accessible name says which row. */
export function DeleteButton({
  name,
  onClick,
  size = "xs",
}: {
  name: string;
  onClick: () => void;
  size?: ButtonProps["size"];
}) {
  return (
    <Button size={size} variant="subtle" color="red" aria-label={`Delete ${name}`} onClick={onClick}>
      Delete
    </Button>
  );
}

/**
 * The state of "delete this, once confirmed": `ask(row)` opens the dialog, `dialog` goes on a `ConfirmDialog`
 * (open, busy, the server's error, close, confirm), and `target` is the row asked about, for the dialog's words.
 * Closing forgets a failed attempt, so the next row's dialog starts clean.
 */
export function useDeleteConfirmation<T, TVariables, TData>(
  mutation: UseMutationResult<TData, Error, TVariables>,
  variablesOf: (row: T) => TVariables,
) {
  const [target, setTarget] = useState<T | null>(null);
  return {
    target,
    ask: (row: T) => {
      setTarget(row);
    },
    dialog: {
      opened: target !== null,
      loading: mutation.isPending,
      error: mutation.error,
      onClose: () => {
        setTarget(null);
        mutation.reset();
      },
      onConfirm: () => {
        if (target === null) return;
        mutation.mutate(variablesOf(target), {
          onSuccess: () => {
            setTarget(null);
          },
        });
      },
    },
  };
}
