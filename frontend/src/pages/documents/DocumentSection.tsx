/**
 * The one list of a project's YAML documents with its editor (rules, campaigns): the heading and "New …", the
 * editor card above the list (started from the server's template for a new one), the table — name, whether it is
 * valid, the kind's own columns, when it changed — with Edit, the kind's own buttons and Delete (asked first).
 * `ProjectPickerPage` is the page around it: a screen of every project the user owns, one chosen at a time.
 */
import { Alert, Badge, Button, Group, Select, Stack, Table, Title } from "@mantine/core";
import type { UseMutationResult, UseQueryResult } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useSearchParams } from "react-router";
import { useDocumentTemplate } from "../../api/workspace/documents";
import { useAllProjects } from "../../api/workspace/projects";
import { formatDate } from "../dashboards/format";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ListPage } from "../../components/ListPage";
import { ResourceTable, useDeleteConfirmation } from "../../components/ResourceTable";
import { ErrorState, LoadingState } from "../../components/StateViews";
import {
  DocumentCard,
  type DocumentDraft,
  type DocumentSpec,
  type SaveDocument,
  type StoredDocument,
} from "../../components/documents/DocumentEditor";

export interface ListedDocument extends StoredDocument {
  valid: boolean;
  updated_at: string;
}

/** A column of the kind's own, between "Valid" and "Updated". */
export interface DocumentColumn<D> {
  header: string;
  cell: (document: D) => ReactNode;
}

interface DocumentSectionProps<D extends ListedDocument> {
  spec: DocumentSpec;
  projectId: number;
  list: UseQueryResult<D[]>;
  useSave: () => SaveDocument<D>;
  remove: UseMutationResult<unknown, Error, { projectId: number; id: number }>;
  /** Shown instead of the table while there is no document and no editor open. */
  empty: ReactNode;
  /** What the "Valid" badge says of an invalid document, e.g. "2 problems". */
  invalidLabel: (document: D) => string;
  columns?: DocumentColumn<D>[];
  minWidth: number;
  /** The kind's buttons after Edit. */
  rowActions?: (document: D) => ReactNode;
  /** Under the delete question: what becomes of past runs. */
  deleteNote: string;
  /** Above the table, e.g. the error of a switch in a row. */
  above?: ReactNode;
  /** The editor card's extra buttons and errors. */
  editorActions?: (draft: DocumentDraft) => ReactNode;
  editorAlerts?: ReactNode;
  /** Called whenever the editor opens or closes. */
  onEditorChange?: () => void;
}

type Editing<D> = { document: D | null } | null;

export function DocumentSection<D extends ListedDocument>({
  spec,
  projectId,
  list,
  useSave,
  remove,
  empty,
  invalidLabel,
  columns = [],
  minWidth,
  rowActions,
  deleteNote,
  above,
  editorActions,
  editorAlerts,
  onEditorChange,
}: DocumentSectionProps<D>) {
  const [editing, setEditingState] = useState<Editing<D>>(null);
  const template = useDocumentTemplate(spec.kind, projectId, editing !== null && editing.document === null);
  const deletion = useDeleteConfirmation(remove, (document: D) => ({ projectId, id: document.id }));
  const nameOf = (document: D) => document.name ?? `${spec.noun} ${String(document.id)}`;
  const setEditing = (next: Editing<D>) => {
    setEditingState(next);
    onEditorChange?.();
  };

  return (
    <>
      <Group justify="space-between">
        <Title order={2} size="h4">
          {spec.plural}
        </Title>
        <Button
          onClick={() => {
            setEditing({ document: null });
          }}
        >
          {`New ${spec.noun}`}
        </Button>
      </Group>
      {editing !== null &&
        (editing.document === null && template.isPending ? (
          <LoadingState label="Loading the template" />
        ) : (
          <DocumentCard
            key={editing.document?.id ?? "new"}
            spec={spec}
            projectId={projectId}
            document={editing.document}
            initialText={editing.document?.text ?? template.data ?? ""}
            useSave={useSave}
            onDone={() => {
              setEditing(null);
            }}
            actions={editorActions}
            alerts={editorAlerts}
          />
        ))}
      {above}
      <ResourceTable
        query={list}
        plural={spec.plural.toLowerCase()}
        errorTitle={`Could not load the ${spec.plural.toLowerCase()}`}
        empty={editing === null ? empty : null}
        label={spec.plural}
        columns={[
          `${spec.noun.charAt(0).toUpperCase()}${spec.noun.slice(1)}`,
          "Valid",
          ...columns.map((column) => column.header),
          "Updated",
        ]}
        minWidth={minWidth}
        cells={(document) => (
          <>
            <Table.Td fw={500}>{nameOf(document)}</Table.Td>
            <Table.Td>
              <Badge color={document.valid ? "teal" : "red"} variant="light">
                {document.valid ? "valid" : invalidLabel(document)}
              </Badge>
            </Table.Td>
            {columns.map((column) => (
              <Table.Td key={column.header}>{column.cell(document)}</Table.Td>
            ))}
            <Table.Td>{formatDate(document.updated_at)}</Table.Td>
          </>
        )}
        deleteRow={{ name: nameOf, ask: deletion.ask }}
        actions={(document) => (
          <>
            <Button
              size="xs"
              variant="light"
              aria-label={`Edit ${nameOf(document)}`}
              onClick={() => {
                setEditing({ document });
              }}
            >
              Edit
            </Button>
            {rowActions?.(document)}
          </>
        )}
      />
      <ConfirmDialog
        {...deletion.dialog}
        title={`Delete ${deletion.target ? nameOf(deletion.target) : `this ${spec.noun}`}?`}
        confirmLabel={`Delete ${spec.noun}`}
      >
        {deleteNote}
      </ConfirmDialog>
    </>
  );
}

interface ProjectPickerPageProps {
  title: string;
  description: ReactNode;
  /** What belongs to a project, for the alert shown when there is none: "Rules belong to a project: …". */
  belonging: string;
  /** The chosen project's part of the page. */
  children: (projectId: number) => ReactNode;
}

/** A page over the user's projects, one chosen at a time (`?project=`, else the first). */
export function ProjectPickerPage({ title, description, belonging, children }: ProjectPickerPageProps) {
  const [params, setParams] = useSearchParams();
  const projects = useAllProjects();
  const projectParam = Number(params.get("project"));
  const owned = projects.data ?? [];
  const projectId =
    Number.isInteger(projectParam) && owned.some((p) => p.id === projectParam) ? projectParam : (owned[0]?.id ?? null);

  return (
    <ListPage wide title={title} description={description}>
      {projects.isPending && <LoadingState label="Loading projects" />}
      {projects.isError && <ErrorState error={projects.error} title="Could not load the projects" />}
      {projects.data?.length === 0 && (
        <Alert color="blue" title="No project yet">
          {`${belonging} belong to a project: create one first.`}
        </Alert>
      )}
      {owned.length > 0 && (
        <Select
          label="Project"
          data={owned.map((p) => ({ value: String(p.id), label: p.name }))}
          value={projectId === null ? null : String(projectId)}
          onChange={(value) => {
            if (value) setParams({ project: value });
          }}
          allowDeselect={false}
          maw={320}
        />
      )}
      {projectId !== null && (
        <Stack key={projectId} gap="md">
          {children(projectId)}
        </Stack>
      )}
    </ListPage>
  );
}
