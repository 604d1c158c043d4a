/**
 * The shell of the logged-out screens: a centred card, the form that sends an e-mail and a password (the server's
 * field messages under the fields), a link to the other screen that keeps `?next=`, and the way to the public
 * dashboards for visitors without an account.
 */
import { Anchor, Button, Center, Paper, Stack, Text, TextInput, Title } from "@mantine/core";
import { isEmail, type UseFormReturnType } from "@mantine/form";
import { useDocumentTitle } from "@mantine/hooks";
import type { UseMutationResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import type { AuthSession, LoginInput } from "../../api/account/auth";
import { ApiError, splitFieldErrors } from "../../api/errors";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";
import { paths } from "../../lib/paths";

const FIELDS = ["email", "password"] as const;

export const checkEmail = isEmail("Enter a valid e-mail address.");

interface AuthFormProps<Values extends LoginInput> {
  title: string;
  form: UseFormReturnType<Values>;
  /** Login or sign-up: both send the e-mail and password, and start a session. */
  request: UseMutationResult<AuthSession, Error, LoginInput>;
  errorTitle: string;
  submitLabel: string;
  /** The way to the other screen: "New to Parley?" and a link to sign up, or back. */
  other: { question: string; label: string; to: (next: string | null) => string };
  /** The password fields, with their own checks. */
  children: ReactNode;
}

export function AuthForm<Values extends LoginInput>({
  title,
  form,
  request,
  errorTitle,
  submitLabel,
  other,
  children,
}: AuthFormProps<Values>) {
  useDocumentTitle(`${title} · Parley`);
  const [searchParams] = useSearchParams();
  const handleSubmit = form.onSubmit((values) => {
    request.mutate(
      // `remember` is the login's "Keep me signed in"; the sign-up form has none, and JSON drops `undefined`.
      { email: values.email.trim(), password: values.password, remember: values.remember },
      {
        onError: (error) => {
          if (error instanceof ApiError) form.setErrors(splitFieldErrors(error, FIELDS).byField);
        },
      },
    );
  });

  return (
    <Center mih="100dvh" p="md" bg="var(--mantine-color-body)">
      <Stack w="100%" maw={420} gap="lg">
        <Stack gap={4} align="center">
          <Text fw={700} fz={28} component="p" m={0}>
            Parley
          </Text>
          <Text c="dimmed" size="sm">
            Black-box testing for chatbots
          </Text>
        </Stack>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Stack gap="md">
            <Title order={1} size="h3">
              {title}
            </Title>
            <form onSubmit={handleSubmit} noValidate>
              <Stack gap="md">
                <ServerErrorAlert error={request.error} title={errorTitle} formFields={FIELDS} />
                <TextInput
                  label="E-mail"
                  type="email"
                  autoComplete="email"
                  key={form.key("email")}
                  {...form.getInputProps("email")}
                />
                {children}
                <Button type="submit" loading={request.isPending} fullWidth>
                  {submitLabel}
                </Button>
              </Stack>
            </form>
            <Text size="sm" ta="center">
              {other.question}{" "}
              <Anchor component={Link} to={other.to(searchParams.get("next"))}>
                {other.label}
              </Anchor>
            </Text>
          </Stack>
        </Paper>
        <Text size="sm" ta="center" c="dimmed">
          No account needed to look around:{" "}
          <Anchor component={Link} to={paths.publicProjects}>
            browse the public dashboards
          </Anchor>
        </Text>
      </Stack>
    </Center>
  );
}
