/**
 * Every list (keys, connectors, projects, rules, runs, conversations, public projects) shares one shape: the
 * loading, error and empty states, a table of rows with their actions at the end, and the pages under it. The
 * screen keeps what is its own: the columns, the buttons, and (with `useDeleteConfirmation`) the words of a
 * delete's confirmation.
 */
import { Button, Group, Pagination, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import type { UseMutationResult, UseQueryResult } from "@tanstack/react-query";
import { type ReactElement, type ReactNode, useState } from "react";
import { type Page, pageCount } from "../api/pagination";
import { ErrorState, LoadingState } from "./StateViews";

export interface ResourceTableProps<T extends { id: number }> {
  /** One page of the list, as the API answers it, or the whole list. */
  query: UseQueryResult<Page<T> | T[]>;
  /** What the rows are, in the plural: "keys" reads "Loading keys" and "Could not load your keys". */
  plural: string;
  loadingLabel?: string;
  errorTitle?: string;
  /** Shown instead of the table when there is nothing; left out, the table stays (e.g. under a filter). */
  empty?: ReactNode;
  /** The one line of an empty table (a filter that matched nothing). */
  noRows?: ReactNode;
  label?: string;
  /** Column headers: a string, or a whole `Table.Th` (with its key) e.g. to sort by it. */
  columns: (string | ReactElement)[];
  /** Where the table scrolls sideways rather than squeezing its columns. */
  minWidth: number;
  /** A row's `Table.Td`s. */
  cells: (row: T) => ReactNode;
  /** A row's buttons, in a last column without a visible header. */
  actions?: (row: T) => ReactNode;
  /** A red Delete after them, named after its row, that asks first (`ask` of `useDeleteConfirmation`). */
  deleteRow?: { name: (row: T) => string; ask: (row: T) => void };
  /** The page shown and the way to another, for a paged list. */
  page?: number;
  onPageChange?: (page: number) => void;
  /** Beside the pages, e.g. how many rows there are or a sign that the list is being read again. */
  footer?: ReactNode;
}

export function ResourceTable<T extends { id: number }>({
  query,
  plural,
  loadingLabel = `Loading ${plural}`,
  errorTitle = `Could not load your ${plural}`,
  empty,
  noRows,
  label,
  columns,
  minWidth,
  cells,
  actions,
  deleteRow,
  page,
  onPageChange,
  footer,
}: ResourceTableProps<T>) {
  if (query.isPending) return <LoadingState label={loadingLabel} />;
  if (query.isError) return <ErrorState error={query.error} title={errorTitle} onRetry={() => void query.refetch()} />;
  const { count, results } = Array.isArray(query.data) ? { count: query.data.length, results: query.data } : query.data;
  if (count === 0 && empty !== undefined) return empty;
  const paged = count > results.length;
  const hasActions = actions !== undefined || deleteRow !== undefined;
  return (
    <Stack gap="sm">
      <Table.ScrollContainer minWidth={minWidth}>
        <Table striped highlightOnHover verticalSpacing="sm" aria-label={label} aria-busy={query.isFetching}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((column) =>
                typeof column === "string" ? <Table.Th key={column}>{column}</Table.Th> : column,
              )}
              {hasActions && (
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {results.length === 0 && noRows && (
              <Table.Tr>
                <Table.Td colSpan={columns.length + (hasActions ? 1 : 0)}>
                  <Text size="sm" c="dimmed">
                    {noRows}
                  </Text>
                </Table.Td>
              </Table.Tr>
            )}
            {results.map((row) => (
              <Table.Tr key={row.id}>
                {cells(row)}
                {hasActions && (
                  <Table.Td>
                    <Group gap={6} justify="flex-end" wrap="nowrap">
                      {actions?.(row)}
                      {deleteRow && (
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Delete ${deleteRow.name(row)}`}
                          onClick={() => {
                            deleteRow.ask(row);
                          }}
                        >
                          Delete
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {(paged || footer) && (
        <Group justify="space-between">
          {footer}
          {paged && (
            <Pagination
              total={pageCount(count)}
              value={page}
              onChange={onPageChange}
              aria-label="Pages"
              getControlProps={(control) => ({ "aria-label": `${control} page` })}
            />
          )}
        </Group>
      )}
    </Stack>
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
