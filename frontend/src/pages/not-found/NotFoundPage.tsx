import { Button, Center, Group, Stack, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { Link } from "react-router";
import { paths } from "../../lib/paths";

export function NotFoundPage() {
  useDocumentTitle("Page not found · Parley");
  return (
    <Center mih="100dvh" p="md">
      <Stack align="center" gap="sm" maw={420}>
        <Text c="dimmed" fw={700} fz={48} lh={1}>
          404
        </Text>
        <Title order={1} size="h2">
          Page not found
        </Title>
        <Text c="dimmed" ta="center">
          There is nothing at this address. It may have moved, or the link may be wrong.
        </Text>
        <Group gap="xs" justify="center">
          <Button component={Link} to={paths.home}>
            Go to the home page
          </Button>
          <Button component={Link} to={paths.publicProjects} variant="default">
            Browse the public dashboards
          </Button>
        </Group>
      </Stack>
    </Center>
  );
}
