import { Button, Group, Modal, PasswordInput, Select, Stack, TextInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { type LLMKeyInput, useCreateKey } from "../../api/workspace/keys";
import { useProviders } from "../../api/workspace/providers";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";

const FIELDS = ["name", "provider", "base_url", "key"] as const;

interface AddKeyModalProps {
  opened: boolean;
  onClose: () => void;
}

export function AddKeyModal({ opened, onClose }: AddKeyModalProps) {
  const providers = useProviders();
  const createKey = useCreateKey();
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "", provider: "", base_url: "", key: "" },
    validate: {
      name: isNotEmpty("Give the key a name."),
      provider: isNotEmpty("Choose a provider."),
      base_url: (value, values) =>
        needsBaseUrl(values.provider) && value.trim() === "" ? "An OpenAI-compatible server needs its base URL." : null,
      key: (value, values) => (!needsBaseUrl(values.provider) && value.trim() === "" ? "Paste the API key." : null),
    },
  });

  function needsBaseUrl(provider: string): boolean {
    return providers.data?.find((p) => p.id === provider)?.needs_base_url ?? false;
  }

  const close = () => {
    form.reset();
    createKey.reset();
    onClose();
  };

  const handleSubmit = form.onSubmit((values) => {
    const withBaseUrl = needsBaseUrl(values.provider);
    const body: LLMKeyInput = {
      name: values.name.trim(),
      provider: values.provider as LLMKeyInput["provider"],
      ...(withBaseUrl ? { base_url: values.base_url.trim() } : {}),
      ...(values.key.trim() !== "" ? { key: values.key.trim() } : {}),
    };
    createKey.mutate(body, {
      onSuccess: (key) => {
        notifications.show({ color: "green", title: "Key added", message: `${key.name} (${key.hint})` });
        close();
      },
      onError: (error) => {
        if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
      },
    });
  });

  const provider = providers.data?.find((p) => p.id === form.values.provider);

  return (
    <Modal opened={opened} onClose={close} title="Add an LLM API key">
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="sm">
          <ServerErrorAlert error={createKey.error} title="Could not add the key" formFields={FIELDS} />
          <TextInput label="Name" placeholder="e.g. OpenAI (team)" data-autofocus {...form.getInputProps("name")} />
          <Select
            label="Provider"
            placeholder={providers.isPending ? "Loading…" : "Choose a provider"}
            data={(providers.data ?? []).map((p) => ({ value: p.id, label: p.label }))}
            error={providers.isError ? "Could not load the providers." : form.errors.provider}
            allowDeselect={false}
            value={form.values.provider || null}
            onChange={(value) => {
              form.setFieldValue("provider", value ?? "");
            }}
          />
          {provider?.needs_base_url && (
            <TextInput
              label="Base URL"
              description="The server's OpenAI-compatible API root, usually ending in /v1."
              placeholder="http://127.0.0.1:8000/v1"
              {...form.getInputProps("base_url")}
            />
          )}
          <PasswordInput
            label="API key"
            description={
              provider?.needs_base_url
                ? "Optional for servers that need none. Stored encrypted; only a masked hint is ever shown."
                : "Stored encrypted; only a masked hint is ever shown."
            }
            autoComplete="off"
            {...form.getInputProps("key")}
          />
          <Group justify="flex-end" mt="xs">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={createKey.isPending}>
              Add key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
