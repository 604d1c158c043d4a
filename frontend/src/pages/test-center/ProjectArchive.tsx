/**
 * The project's files as one zip: anyone who can read the project downloads them; the owner imports a zip back
 * (a Parley export, a TRACER output folder, SENSEI project folders). What was imported and what was skipped is
 * announced; a refused archive says which file and line, and nothing of it is stored.
 */
import { Button, Card, FileButton, Group, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { ApiError } from "../../api/errors";
import {
  type ImportOutcome,
  useDownloadProjectArchive,
  useImportProjectArchive,
} from "../../api/workspace/project-archive";
import { counted } from "../../lib/text";

function describeImport(outcome: ImportOutcome): string {
  const parts = [
    counted(outcome.profiles.length, "profile"),
    counted(outcome.rules.length, "rule"),
    counted(outcome.campaigns.length, "campaign"),
    counted(outcome.personalities.length, "personality", "personalities"),
  ];
  const skipped = outcome.skipped.length
    ? ` Skipped ${outcome.skipped.map((row) => `${row.file} (${row.why})`).join(", ")}.`
    : "";
  return `Imported ${parts.join(", ")}.${skipped}`;
}

/** The server names the refused file and line in the `file` field's message; show it rather than a summary. */
function failure(error: unknown): string {
  if (!(error instanceof ApiError)) return "Something went wrong.";
  return Object.values(error.fields).flat().join(" ") || error.detail;
}

export function ProjectArchive({ projectId, readOnly }: { projectId: number; readOnly: boolean }) {
  const download = useDownloadProjectArchive();
  const upload = useImportProjectArchive();
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="archive-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="archive-title">
          Project files
        </Title>
        <Text size="sm" c="dimmed">
          Profiles, rules, security campaigns and personalities as one zip, to keep beside your chatbot's code or move
          to another project.
          {readOnly ? "" : " Importing takes such a zip, a TRACER output folder or SENSEI project folders."}
        </Text>
        <Group gap="xs">
          <Button
            variant="default"
            size="xs"
            loading={download.isPending}
            onClick={() => {
              download.mutate(projectId, {
                onError: (error) => {
                  notifications.show({ color: "red", title: "Export failed", message: failure(error) });
                },
              });
            }}
          >
            Export as zip
          </Button>
          {!readOnly && (
            <FileButton
              accept=".zip,application/zip"
              onChange={(file) => {
                if (file === null) return;
                upload.mutate(
                  { projectId, file },
                  {
                    onSuccess: (outcome) => {
                      notifications.show({
                        color: outcome.skipped.length ? "yellow" : "green",
                        title: "Archive imported",
                        message: describeImport(outcome),
                      });
                    },
                    onError: (error) => {
                      notifications.show({ color: "red", title: "Nothing was imported", message: failure(error) });
                    },
                  },
                );
              }}
            >
              {(props) => (
                <Button {...props} variant="light" size="xs" loading={upload.isPending}>
                  Import a zip
                </Button>
              )}
            </FileButton>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
