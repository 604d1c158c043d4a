/**
 * The one editor of a project's YAML documents (profiles, rules, campaigns): the text, the JSON Schema that drives
 * completion and hover docs, live validation by the server (debounced), the problems under the editor with a
 * button that jumps to each, and the save and check errors. `DocumentSpec` says what differs per kind: its words,
 * its schema, the editor's height. The profile page builds its own frame around it (`DocumentYaml`); rules and
 * campaigns open it as a card above their list (`DocumentCard`).
 */
import { Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import type { UseMutationResult } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { type DocumentKind, useDocumentValidation } from "../../api/workspace/documents";
import { type SchemaKind, useJsonSchema } from "../../api/workspace/schemas";
import { ServerErrorAlert } from "../ServerErrorAlert";
import { ProblemList } from "../yaml-editor/ProblemList";
import { YamlEditor } from "../yaml-editor/YamlEditor";

export interface DocumentSpec {
  kind: DocumentKind;
  schema: SchemaKind;
  /** One document, in the words of the screen: "rule" reads "Save rule", "Could not check the rule". */
  noun: string;
  /** The list's heading, e.g. "Rules". */
  plural: string;
  /** Under the editor: the keyboard help and what an invalid document means. */
  hint: string;
  minHeight: number;
  /** How long the text rests before the server checks it. */
  validateAfterMs: number;
}

/** A stored document, as far as the editor cares. */
export interface StoredDocument {
  id: number;
  name?: string | null;
  text: string;
}

export type SaveDocument<D> = UseMutationResult<D, Error, { projectId: number; id: number | null; text: string }>;

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The text being edited and what the server says of it. */
export function useDocumentDraft(spec: DocumentSpec, projectId: number, initialText: string) {
  const schema = useJsonSchema(spec.schema);
  const [text, setText] = useState(initialText);
  const [goTo, setGoTo] = useState<((line: number, column: number) => void) | null>(null);
  const [debounced] = useDebouncedValue(text, spec.validateAfterMs);
  const validation = useDocumentValidation(spec.kind, projectId, debounced, debounced.trim() !== "");
  const problems = validation.data?.problems ?? [];
  const checking = validation.isFetching || debounced !== text;
  return { spec, schema, text, setText, goTo, setGoTo, validation, problems, checking };
}

export type DocumentDraft = ReturnType<typeof useDocumentDraft>;

interface DocumentYamlProps {
  draft: DocumentDraft;
  saveError: Error | null;
  onSave: () => void;
  readOnly?: boolean;
  /** More errors, shown under the save error (e.g. a failed conversion). */
  alerts?: ReactNode;
}

/** The editor with its errors, help line and problem list. */
export function DocumentYaml({ draft, saveError, onSave, readOnly = false, alerts }: DocumentYamlProps) {
  const { spec, validation, problems } = draft;
  const problemsId = `${spec.schema}-problems`;
  return (
    <>
      <ServerErrorAlert error={saveError} title={`Could not save the ${spec.noun}`} />
      {alerts}
      {validation.isError && <ServerErrorAlert error={validation.error} title={`Could not check the ${spec.noun}`} />}
      <YamlEditor
        label={`${capitalised(spec.noun)} YAML`}
        value={draft.text}
        onChange={draft.setText}
        schema={draft.schema.data ?? null}
        problems={problems}
        describedBy={problemsId}
        readOnly={readOnly}
        onSave={onSave}
        minHeight={spec.minHeight}
        onReady={(fn) => {
          draft.setGoTo(() => fn);
        }}
      />
      <Text size="xs" c="dimmed">
        {spec.hint}
      </Text>
      <ProblemList
        id={problemsId}
        problems={problems}
        onGoTo={draft.goTo ?? undefined}
        validMessage={validation.data?.valid && !draft.checking ? "No problems found." : undefined}
      />
    </>
  );
}

interface DocumentCardProps<D extends StoredDocument> {
  spec: DocumentSpec;
  projectId: number;
  /** The document edited; null for a new one. */
  document: D | null;
  initialText: string;
  /** The kind's save mutation (a hook: the card keeps its own, so its error goes with it). */
  useSave: () => SaveDocument<D>;
  /** Closed: with what was stored, or null when closed without saving. */
  onDone: (saved: D | null) => void;
  /** More buttons before Close, given the draft. */
  actions?: (draft: DocumentDraft) => ReactNode;
  alerts?: ReactNode;
}

/** A document edited in a card above its list: its title, Close and Save, then the editor. */
export function DocumentCard<D extends StoredDocument>({
  spec,
  projectId,
  document,
  initialText,
  useSave,
  onDone,
  actions,
  alerts,
}: DocumentCardProps<D>) {
  const draft = useDocumentDraft(spec, projectId, initialText);
  const save = useSave();

  const doSave = () => {
    if (save.isPending) return;
    save.mutate(
      { projectId, id: document?.id ?? null, text: draft.text },
      {
        onSuccess: (stored) => {
          onDone(stored);
        },
      },
    );
  };

  return (
    <Card withBorder padding="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h5">
            {document === null ? `New ${spec.noun}` : `Edit ${document.name ?? spec.noun}`}
          </Title>
          <Group gap="xs">
            {actions?.(draft)}
            <Button
              variant="default"
              onClick={() => {
                onDone(null);
              }}
            >
              Close
            </Button>
            <Button onClick={doSave} loading={save.isPending} disabled={draft.text.trim() === ""}>
              {`Save ${spec.noun}`}
            </Button>
          </Group>
        </Group>
        <DocumentYaml draft={draft} saveError={save.error} onSave={doSave} alerts={alerts} />
      </Stack>
    </Card>
  );
}
