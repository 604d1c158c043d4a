/**
 * The frame of the public dashboards, for visitors without an account: a header with the way in, and the page.
 * Nothing here needs (or sends) a token; a signed-in user sees the same read-only pages.
 */
import { Anchor, AppShell, Button, Group, Text } from "@mantine/core";
import { Link, Outlet } from "react-router";
import { useToken } from "../../lib/token-store";
import { dashboardPaths } from "../dashboards/dashboard-paths";

export function PublicLayout() {
  const token = useToken();
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Text component={Link} to={dashboardPaths.publicProjects} fw={700} size="lg" c="inherit" td="none">
              Parley
            </Text>
            <Anchor component={Link} to={dashboardPaths.publicProjects} size="sm">
              Public projects
            </Anchor>
          </Group>
          {token === null ? (
            <Group gap="xs">
              <Button component={Link} to="/login" variant="default" size="xs">
                Log in
              </Button>
              <Button component={Link} to="/signup" size="xs">
                Sign up
              </Button>
            </Group>
          ) : (
            <Button component={Link} to="/" variant="default" size="xs">
              Back to your workspace
            </Button>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
