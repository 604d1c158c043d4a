/**
 * A drop area for files that also works from the keyboard: a labelled button opens the file picker, and files
 * dragged onto the area are taken too. Only names ending in one of `extensions` are accepted.
 */
import { Button, Paper, Stack, Text } from "@mantine/core";
import { type DragEvent, useId, useRef, useState } from "react";

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${String(Math.round(bytes / (1024 * 1024)))} MB`;
  if (bytes >= 1024) return `${String(Math.round(bytes / 1024))} KB`;
  return `${String(bytes)} bytes`;
}

interface FileDropZoneProps {
  /** Lower-case, with the dot: [".yaml", ".yml"]. */
  extensions: readonly string[];
  maxBytes: number;
  onFiles: (files: File[]) => void;
  onReject: (messages: string[]) => void;
  buttonLabel: string;
  hint: string;
  loading?: boolean;
  disabled?: boolean;
}

export function FileDropZone({
  extensions,
  maxBytes,
  onFiles,
  onReject,
  buttonLabel,
  hint,
  loading = false,
  disabled = false,
}: FileDropZoneProps) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const hintId = useId();

  const take = (list: FileList | null) => {
    const files = [...(list ?? [])];
    const accepted: File[] = [];
    const rejected: string[] = [];
    for (const file of files) {
      const lower = file.name.toLowerCase();
      if (!extensions.some((ext) => lower.endsWith(ext)))
        rejected.push(`${file.name}: not a ${extensions.join(" or ")} file`);
      else if (file.size > maxBytes) rejected.push(`${file.name}: larger than ${formatBytes(maxBytes)}`);
      else accepted.push(file);
    }
    if (rejected.length > 0) onReject(rejected);
    if (accepted.length > 0) onFiles(accepted);
  };

  const over = (event: DragEvent) => {
    if (disabled) return;
    event.preventDefault();
    setDragging(true);
  };

  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      data-dragging={dragging || undefined}
      style={{
        borderStyle: "dashed",
        borderColor: dragging ? "var(--mantine-primary-color-filled)" : undefined,
        background: dragging ? "var(--mantine-primary-color-light)" : undefined,
      }}
      onDragEnter={over}
      onDragOver={over}
      onDragLeave={() => {
        setDragging(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        if (!disabled) take(event.dataTransfer.files);
      }}
    >
      <Stack align="center" gap={6}>
        <Text size="sm" fw={500}>
          {dragging ? "Drop the files to upload them" : "Drop files here, or"}
        </Text>
        <Button
          size="xs"
          variant="light"
          loading={loading}
          disabled={disabled}
          aria-describedby={hintId}
          onClick={() => input.current?.click()}
        >
          {buttonLabel}
        </Button>
        <Text size="xs" c="dimmed" id={hintId} ta="center">
          {hint}
        </Text>
        <input
          ref={input}
          type="file"
          multiple
          accept={extensions.join(",")}
          hidden
          data-testid="file-input"
          onChange={(event) => {
            take(event.currentTarget.files);
            event.currentTarget.value = "";
          }}
        />
      </Stack>
    </Paper>
  );
}
