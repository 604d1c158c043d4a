/**
 * The one shape of the dialogs that start a long run (TRACER, SENSEI, a bench): what the run does and its settings,
 * what the server refused, Cancel and Start. Once started, a dialog that follows its run shows its progress instead.
 */
import { Button, Group, Modal, type ModalProps, Stack } from "@mantine/core";
import type { ReactNode } from "react";
import type { Run } from "../api/runs";
import { RunProgress } from "./RunProgress";
import { ServerErrorAlert } from "./ServerErrorAlert";

interface StartRunDialogProps {
  title: string;
  opened: boolean;
  onClose: () => void;
  size?: ModalProps["size"];
  /** The run this dialog started and now follows, with the title of its progress. */
  following?: { runId: number | null; title: string; onFinished?: (run: Run) => void };
  /** The `StartRunForm`, or what stands in for it while its choices load. */
  children: ReactNode;
}

export function StartRunDialog({ title, opened, onClose, size = "md", following, children }: StartRunDialogProps) {
  const runId = following?.runId ?? null;
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={runId === null ? size : "xl"}>
      {following && runId !== null ? (
        <Stack gap="sm">
          <RunProgress runId={runId} onFinished={following.onFinished} title={following.title} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close (the run goes on)
            </Button>
          </Group>
        </Stack>
      ) : (
        children
      )}
    </Modal>
  );
}

interface StartRunFormProps {
  label?: string;
  /** The start request: its error shows above the buttons, and Start spins while it is pending. */
  start: { error: Error | null; isPending: boolean };
  errorTitle: string;
  /** Fields that show the server's messages under themselves; those stay out of the alert. */
  formFields?: readonly string[];
  submitLabel: string;
  canSubmit?: boolean;
  onSubmit: () => void;
  onCancel: () => void;
  /** What the run does, then its settings. */
  children: ReactNode;
}

export function StartRunForm({
  label,
  start,
  errorTitle,
  formFields,
  submitLabel,
  canSubmit = true,
  onSubmit,
  onCancel,
  children,
}: StartRunFormProps) {
  return (
    <form
      noValidate
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <Stack gap="sm">
        {children}
        <ServerErrorAlert error={start.error} title={errorTitle} formFields={formFields} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={start.isPending} disabled={!canSubmit}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
