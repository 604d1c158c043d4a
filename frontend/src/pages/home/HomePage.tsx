import { Stack, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useMe } from "../../api/account/auth";
import { SystemStatusCard } from "./SystemStatusCard";

export function HomePage() {
  useDocumentTitle("Home · Parley");
  const { data: user } = useMe();

  return (
    <Stack gap="lg" maw={960}>
      <Stack gap={4}>
        <Title order={1} size="h2">
          Welcome to Parley
        </Title>
        <Text c="dimmed">
          {user ? `Signed in as ${user.email}. ` : ""}Parley explores your chatbot, writes user profiles that talk to
          it, and checks the conversations against your rules.
        </Text>
      </Stack>
      <SystemStatusCard />
    </Stack>
  );
}
