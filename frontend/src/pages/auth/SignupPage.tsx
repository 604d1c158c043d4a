import { PasswordInput } from "@mantine/core";
import { hasLength, matchesField, useForm } from "@mantine/form";
import { useSignup } from "../../api/account/auth";
import { paths } from "../../lib/paths";
import { AuthForm, checkEmail } from "./AuthForm";

/** Mirrors Django's default minimum; the server stays the judge of password strength. */
const MIN_PASSWORD_LENGTH = 8;

export function SignupPage() {
  const signup = useSignup();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", password: "", confirmPassword: "" },
    validate: {
      email: checkEmail,
      password: hasLength({ min: MIN_PASSWORD_LENGTH }, `Use at least ${String(MIN_PASSWORD_LENGTH)} characters.`),
      confirmPassword: matchesField("password", "The passwords do not match."),
    },
  });

  return (
    <AuthForm
      title="Create an account"
      form={form}
      request={signup}
      errorTitle="Could not create the account"
      submitLabel="Create account"
      other={{ question: "Already have an account?", label: "Log in", to: paths.login }}
    >
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
    </AuthForm>
  );
}
