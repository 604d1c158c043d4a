import { Center, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

interface AuthLayoutProps {
  title: string;
  children: ReactNode;
}

/** The centred card the logged-out screens share. */
export function AuthLayout({ title, children }: AuthLayoutProps) {
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
            {children}
          </Stack>
        </Paper>
      </Stack>
    </Center>
  );
}
