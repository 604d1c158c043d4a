import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { hasLength, isEmail, matchesField, useForm } from "@mantine/form";
import { useDocumentTitle } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { useSignup } from "../../api/auth";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { paths } from "../../lib/paths";
import { AuthLayout } from "./AuthLayout";

const FIELDS = ["email", "password"] as const;

/** Mirrors Django's default minimum; the server stays the judge of password strength. */
const MIN_PASSWORD_LENGTH = 8;

export function SignupPage() {
  useDocumentTitle("Create an account · Parley");
  const [searchParams] = useSearchParams();
  const signup = useSignup();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", password: "", confirmPassword: "" },
    validate: {
      email: isEmail("Enter a valid e-mail address."),
      password: hasLength({ min: MIN_PASSWORD_LENGTH }, `Use at least ${String(MIN_PASSWORD_LENGTH)} characters.`),
      confirmPassword: matchesField("password", "The passwords do not match."),
    },
  });

  const handleSubmit = form.onSubmit((values) => {
    signup.mutate(
      { email: values.email.trim(), password: values.password },
      {
        onError: (error) => {
          if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
        },
      },
    );
  });

  return (
    <AuthLayout title="Create an account">
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <ServerErrorAlert error={signup.error} title="Could not create the account" formFields={FIELDS} />
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="email"
            key={form.key("email")}
            {...form.getInputProps("email")}
          />
          <PasswordInput
            label="Password"
            description={`At least ${String(MIN_PASSWORD_LENGTH)} characters.`}
            autoComplete="new-password"
            key={form.key("password")}
            {...form.getInputProps("password")}
          />
          <PasswordInput
            label="Confirm password"
            autoComplete="new-password"
            key={form.key("confirmPassword")}
            {...form.getInputProps("confirmPassword")}
          />
          <Button type="submit" loading={signup.isPending} fullWidth>
            Create account
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center">
        Already have an account?{" "}
        <Anchor component={Link} to={paths.login(searchParams.get("next"))}>
          Log in
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
