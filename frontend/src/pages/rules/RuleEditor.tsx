/** Writing one SENSEI-check rule: the YAML editor with the rule schema, live validation by the server, save. */
import { Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { type Rule, useRuleValidation, useSaveRule } from "../../api/rule-results";
import { useJsonSchema } from "../../api/schemas";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { ProblemList } from "../../components/yaml-editor/ProblemList";
import { YamlEditor } from "../../components/yaml-editor/YamlEditor";

const VALIDATE_DEBOUNCE_MS = 400;

interface RuleEditorProps {
  projectId: number;
  rule: Rule | null;
  initialText: string;
  onDone: (saved: Rule | null) => void;
}

export function RuleEditor({ projectId, rule, initialText, onDone }: RuleEditorProps) {
  const schema = useJsonSchema("rule");
  const save = useSaveRule();
  const [text, setText] = useState(initialText);
  const [goTo, setGoTo] = useState<((line: number, column: number) => void) | null>(null);
  const [debounced] = useDebouncedValue(text, VALIDATE_DEBOUNCE_MS);
  const validation = useRuleValidation(projectId, debounced, debounced.trim() !== "");
  const problems = validation.data?.problems ?? [];
  const checking = validation.isFetching || debounced !== text;

  const doSave = () => {
    if (save.isPending) return;
    save.mutate(
      { projectId, id: rule?.id ?? null, text },
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
            {rule === null ? "New rule" : `Edit ${rule.name ?? "rule"}`}
          </Title>
          <Group gap="xs">
            <Button
              variant="default"
              onClick={() => {
                onDone(null);
              }}
            >
              Close
            </Button>
            <Button onClick={doSave} loading={save.isPending} disabled={text.trim() === ""}>
              Save rule
            </Button>
          </Group>
        </Group>
        <ServerErrorAlert error={save.error} title="Could not save the rule" />
        {validation.isError && <ServerErrorAlert error={validation.error} title="Could not check the rule" />}
        <YamlEditor
          label="Rule YAML"
          value={text}
          onChange={setText}
          schema={schema.data ?? null}
          problems={problems}
          describedBy="rule-problems"
          onSave={doSave}
          minHeight={260}
          onReady={(fn) => {
            setGoTo(() => fn);
          }}
        />
        <Text size="xs" c="dimmed">
          Ctrl+Space suggests keys; hover a key for its description; Ctrl+S saves. An invalid rule is kept but is not
          checked.
        </Text>
        <ProblemList
          id="rule-problems"
          problems={problems}
          onGoTo={goTo ?? undefined}
          validMessage={validation.data?.valid && !checking ? "No problems found." : undefined}
        />
      </Stack>
    </Card>
  );
}
