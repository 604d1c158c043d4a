/** Shown by the router when a screen throws while rendering. */
import { Button, Center, Stack, Text, Title } from "@mantine/core";
import { useRouteError } from "react-router";

export function RouteErrorPage() {
  const error = useRouteError();
  // Logged for whoever opens the console; the user sees a short message and a way out.
  console.error(error);
  return (
    <Center h="100dvh" p="md">
      <Stack align="center" gap="sm" maw={420}>
        <Title order={1} size="h2">
          Something went wrong
        </Title>
        <Text c="dimmed" ta="center">
          This screen failed to load. Reloading the page usually helps.
        </Text>
        <Button
          onClick={() => {
            window.location.reload();
          }}
        >
          Reload
        </Button>
      </Stack>
    </Center>
  );
}
