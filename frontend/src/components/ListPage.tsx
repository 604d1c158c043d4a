import { Button, Stack } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import type { UseMutationResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { ConfirmDialog } from "./ConfirmDialog";
import { PageHeader } from "./PageHeader";
import { ResourceTable, type ResourceTableProps, useDeleteConfirmation } from "./ResourceTable";
import { EmptyState } from "./StateViews";

interface ListPageProps {
  title: string;
  /** The browser tab's name, before " · Parley"; the title unless said. */
  documentTitle?: string;
  description: ReactNode;
  /** The screen's main actions, at the end of the header. */
  actions?: ReactNode;
  /** Use the whole width, for tables of many columns (the run dashboards). */
  wide?: boolean;
  /** The list (a `ResourceTable`, or a `RunsTable` that filters one) and the dialogs it opens. */
  children: ReactNode;
}

/** The shape of a list screen: its header (title, a line about it, main actions), then the list. */
export function ListPage({
  title,
  documentTitle = title,
  description,
  actions,
  wide = false,
  children,
}: ListPageProps) {
  useDocumentTitle(`${documentTitle} · Parley`);
  return (
    <Stack gap="lg" maw={wide ? undefined : 1100}>
      <PageHeader title={title} description={description} actions={actions} />
      {children}
    </Stack>
  );
}

interface ResourceListPageProps<T extends { id: number; name: string }> extends Omit<
  ResourceTableProps<T>,
  "empty" | "deleteRow"
> {
  title: string;
  description: ReactNode;
  /** One row, in the singular: "Delete connector". */
  noun: string;
  /** The button that adds one: in the header once there are rows, in the empty state before. */
  create: ReactNode;
  /** Why one would add the first, under "No {plural} yet". */
  emptyText: ReactNode;
  /** Where a row is edited: an Edit link after the row's other actions. */
  editPath?: (row: T) => string;
  /** Deleting a row by its id, once confirmed; `deleteText` says what that does to the row asked about. */
  remove: UseMutationResult<unknown, Error, number>;
  deleteText: (row: T) => string;
  /** The dialogs the rows' actions open. */
  children?: ReactNode;
}

/** A screen of the caller's own things (keys, connectors, projects): the list, adding one, and deleting one. */
export function ResourceListPage<T extends { id: number; name: string }>({
  title,
  description,
  noun,
  create,
  emptyText,
  remove,
  deleteText,
  editPath,
  children,
  actions,
  ...table
}: ResourceListPageProps<T>) {
  const deletion = useDeleteConfirmation(remove, (row: T) => row.id);
  const data = table.query.data;
  const count = data === undefined ? 0 : Array.isArray(data) ? data.length : data.count;
  return (
    <ListPage title={title} description={description} actions={count > 0 ? create : undefined}>
      <ResourceTable
        {...table}
        empty={
          <EmptyState title={`No ${table.plural} yet`} action={create}>
            {emptyText}
          </EmptyState>
        }
        actions={(row) => (
          <>
            {actions?.(row)}
            {editPath && (
              <Button size="xs" variant="default" component={Link} to={editPath(row)} aria-label={`Edit ${row.name}`}>
                Edit
              </Button>
            )}
          </>
        )}
        deleteRow={{ name: (row) => row.name, ask: deletion.ask }}
      />
      {children}
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${deletion.target?.name ?? noun}?`}
        confirmLabel={`Delete ${noun}`}
      >
        {deletion.target ? deleteText(deletion.target) : ""}
      </ConfirmDialog>
    </ListPage>
  );
}
