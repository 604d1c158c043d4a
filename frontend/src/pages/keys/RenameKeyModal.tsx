import { Button, Group, Modal, Stack, TextInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { type LLMKey, useRenameKey } from "../../api/workspace/keys";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";

const FIELDS = ["name"] as const;

export function RenameKeyModal({ llmKey, onClose }: { llmKey: LLMKey; onClose: () => void }) {
  const rename = useRenameKey();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { name: llmKey.name },
    validate: { name: isNotEmpty("Give the key a name.") },
  });
  const handleSubmit = form.onSubmit(({ name }) => {
    rename.mutate(
      { id: llmKey.id, name: name.trim() },
      {
        onSuccess: onClose,
        onError: (error) => {
          if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
        },
      },
    );
  });
  return (
    <Modal opened onClose={onClose} title={`Rename ${llmKey.name}`}>
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="sm">
          <ServerErrorAlert error={rename.error} title="Could not rename the key" formFields={FIELDS} />
          <TextInput label="Name" data-autofocus key={form.key("name")} {...form.getInputProps("name")} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={rename.isPending}>
              Rename
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
