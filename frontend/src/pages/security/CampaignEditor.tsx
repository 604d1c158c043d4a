/**
 * Writing one security campaign: the YAML editor with the campaign schema (completion of attacks, oracles and
 * delivery modes; hover docs), live validation by the server with line numbers, and save. A reference
 * `security.yml` is accepted as it is; "Convert" rewrites it in Parley's own format.
 */
import { Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useJsonSchema } from "../../api/schemas";
import { type Campaign, useCampaignValidation, useConvertCampaign, useSaveCampaign } from "../../api/security";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { ProblemList } from "../../components/yaml-editor/ProblemList";
import { YamlEditor } from "../../components/yaml-editor/YamlEditor";

const VALIDATE_DEBOUNCE_MS = 400;

interface CampaignEditorProps {
  projectId: number;
  campaign: Campaign | null;
  initialText: string;
  onDone: (saved: Campaign | null) => void;
}

export function CampaignEditor({ projectId, campaign, initialText, onDone }: CampaignEditorProps) {
  const schema = useJsonSchema("campaign");
  const save = useSaveCampaign();
  const convert = useConvertCampaign();
  const [text, setText] = useState(initialText);
  const [goTo, setGoTo] = useState<((line: number, column: number) => void) | null>(null);
  const [debounced] = useDebouncedValue(text, VALIDATE_DEBOUNCE_MS);
  const validation = useCampaignValidation(projectId, debounced, debounced.trim() !== "");
  const problems = validation.data?.problems ?? [];
  const checking = validation.isFetching || debounced !== text;
  const reference = problems.some((problem) => problem.message.includes("reference format"));

  const doSave = () => {
    if (save.isPending) return;
    save.mutate(
      { projectId, id: campaign?.id ?? null, text },
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
            {campaign === null ? "New campaign" : `Edit ${campaign.name ?? "campaign"}`}
          </Title>
          <Group gap="xs">
            {reference && (
              <Button
                variant="light"
                loading={convert.isPending}
                onClick={() => {
                  convert.mutate(
                    { projectId, text },
                    {
                      onSuccess: (converted) => {
                        setText(converted);
                      },
                    },
                  );
                }}
              >
                Convert to Parley&apos;s format
              </Button>
            )}
            <Button
              variant="default"
              onClick={() => {
                onDone(null);
              }}
            >
              Close
            </Button>
            <Button onClick={doSave} loading={save.isPending} disabled={text.trim() === ""}>
              Save campaign
            </Button>
          </Group>
        </Group>
        <ServerErrorAlert error={save.error} title="Could not save the campaign" />
        <ServerErrorAlert error={convert.error} title="Could not convert the campaign" />
        {validation.isError && <ServerErrorAlert error={validation.error} title="Could not check the campaign" />}
        <YamlEditor
          label="Campaign YAML"
          value={text}
          onChange={setText}
          schema={schema.data ?? null}
          problems={problems}
          describedBy="campaign-problems"
          onSave={doSave}
          minHeight={300}
          onReady={(fn) => {
            setGoTo(() => fn);
          }}
        />
        <Text size="xs" c="dimmed">
          Ctrl+Space suggests attacks, oracles and keys; hover a key for its description; Ctrl+S saves. An invalid
          campaign is kept but cannot run.
        </Text>
        <ProblemList
          id="campaign-problems"
          problems={problems}
          onGoTo={goTo ?? undefined}
          validMessage={validation.data?.valid && !checking ? "No problems found." : undefined}
        />
      </Stack>
    </Card>
  );
}
