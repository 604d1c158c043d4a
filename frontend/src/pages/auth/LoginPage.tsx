import { Anchor, Button, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { isEmail, isNotEmpty, useForm } from "@mantine/form";
import { useDocumentTitle } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { useLogin } from "../../api/auth";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { paths } from "../../lib/paths";
import { AuthLayout } from "./AuthLayout";

const FIELDS = ["email", "password"] as const;

/** Where to go after logging in is decided by the guard around this route (it honours `?next=`). */
export function LoginPage() {
  useDocumentTitle("Log in · Parley");
  const [searchParams] = useSearchParams();
  const login = useLogin();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", password: "" },
    validate: {
      email: isEmail("Enter a valid e-mail address."),
      password: isNotEmpty("Enter your password."),
    },
  });

  const handleSubmit = form.onSubmit((values) => {
    login.mutate(
      { email: values.email.trim(), password: values.password },
      {
        onError: (error) => {
          if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
        },
      },
    );
  });

  return (
    <AuthLayout title="Log in">
      <form onSubmit={handleSubmit} noValidate>
        <Stack gap="md">
          <ServerErrorAlert error={login.error} title="Could not log in" formFields={FIELDS} />
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="email"
            key={form.key("email")}
            {...form.getInputProps("email")}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            key={form.key("password")}
            {...form.getInputProps("password")}
          />
          <Button type="submit" loading={login.isPending} fullWidth>
            Log in
          </Button>
        </Stack>
      </form>
      <Text size="sm" ta="center">
        New to Parley?{" "}
        <Anchor component={Link} to={paths.signup(searchParams.get("next"))}>
          Create an account
        </Anchor>
      </Text>
    </AuthLayout>
  );
}
