/**
 * The one shape of the dialogs that start a long run (TRACER, SENSEI, a bench): what the run does and its settings,
 * what the server refused, Cancel and Start. Once started, a dialog that follows its run shows its progress instead.
 */
import { Alert, Anchor, Button, Group, Modal, type ModalProps, Stack, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";
import type { Run } from "../api/runs/runs";
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
          <RunProgress runId={runId} onFinished={following.onFinished} title={following.title} linkToRunPage />
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
  /**
   * What keeps the run from starting and where to fix it (a project without a key or model): shown instead of
   * letting the server refuse, and offered again under any refusal the server sends.
   */
  fix?: { problem: string | null; label: string; to: string };
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
  fix,
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
        {fix?.problem && (
          <Alert color="yellow" title="This run cannot start yet">
            <Stack gap={4} align="flex-start">
              <Text size="sm">{fix.problem}</Text>
              <Anchor component={Link} to={fix.to} size="sm" fw={600}>
                {fix.label}
              </Anchor>
            </Stack>
          </Alert>
        )}
        <ServerErrorAlert error={start.error} title={errorTitle} formFields={formFields} />
        {fix && !fix.problem && start.error && (
          <Anchor component={Link} to={fix.to} size="sm">
            {fix.label}
          </Anchor>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={start.isPending} disabled={!canSubmit || Boolean(fix?.problem)}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
