import { Checkbox, PasswordInput } from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { useLogin } from "../../api/account/auth";
import { paths } from "../../lib/paths";
import { AuthForm, checkEmail } from "./AuthForm";

/** Where to go after logging in is decided by the guard around this route (it honours `?next=`). */
export function LoginPage() {
  const login = useLogin();
  const form = useForm({
    mode: "uncontrolled",
    initialValues: { email: "", password: "", remember: false },
    validate: { email: checkEmail, password: isNotEmpty("Enter your password.") },
  });

  return (
    <AuthForm
      title="Log in"
      form={form}
      request={login}
      errorTitle="Could not log in"
      submitLabel="Log in"
      other={{ question: "New to Parley?", label: "Create an account", to: paths.signup }}
    >
      <PasswordInput
        label="Password"
        autoComplete="current-password"
        key={form.key("password")}
        {...form.getInputProps("password")}
      />
      {/* Opt-in: by default a session lives in its tab only (an HttpOnly cookie does the remembering). */}
      <Checkbox
        label="Keep me signed in"
        description="New tabs and restarts of this browser stay signed in until you log out (or it expires). Not on a shared computer."
        key={form.key("remember")}
        {...form.getInputProps("remember", { type: "checkbox" })}
      />
    </AuthForm>
  );
}
