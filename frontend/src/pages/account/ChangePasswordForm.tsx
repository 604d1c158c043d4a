import { Button, Group, PasswordInput, Stack } from "@mantine/core";
import { hasLength, isNotEmpty, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useChangePassword } from "../../api/account/auth";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";

const FIELDS = ["current_password", "new_password"] as const;
const MIN_PASSWORD_LENGTH = 8;

export function ChangePasswordForm() {
  const changePassword = useChangePassword();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { current_password: "", new_password: "" },
    validate: {
      current_password: isNotEmpty("Enter your current password."),
      new_password: hasLength({ min: MIN_PASSWORD_LENGTH }, `Use at least ${String(MIN_PASSWORD_LENGTH)} characters.`),
    },
  });

  const handleSubmit = form.onSubmit((values) => {
    changePassword.mutate(values, {
      onSuccess: () => {
        form.reset();
        notifications.show({
          color: "green",
          title: "Password changed",
          message: "Every other device has been logged out.",
        });
      },
      onError: (error) => {
        if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
      },
    });
  });

  return (
    <form onSubmit={handleSubmit} noValidate>
      <Stack gap="md" maw={420}>
        <ServerErrorAlert error={changePassword.error} title="Could not change the password" formFields={FIELDS} />
        <PasswordInput
          label="Current password"
          autoComplete="current-password"
          key={form.key("current_password")}
          {...form.getInputProps("current_password")}
        />
        <PasswordInput
          label="New password"
          description={`At least ${String(MIN_PASSWORD_LENGTH)} characters.`}
          autoComplete="new-password"
          key={form.key("new_password")}
          {...form.getInputProps("new_password")}
        />
        <Group>
          <Button type="submit" loading={changePassword.isPending}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
