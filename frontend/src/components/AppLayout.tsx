/** The signed-in frame: header (name, user, log out), navigation, and the current screen. */
import { AppShell, Burger, Button, Group, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Link, NavLink as RouterNavLink, Outlet, useMatch } from "react-router";
import { useLogout, useMe } from "../api/auth";
import { paths } from "../lib/paths";

interface NavItem {
  label: string;
  to: string;
  /** Match the path exactly (for `/`, which prefixes every path). */
  end?: boolean;
}

// Screens to come, in this order: Setup guide, Keys, Connectors, Projects, Test center, TRACER, SENSEI, Rules.
const NAV_ITEMS: readonly NavItem[] = [
  { label: "Home", to: paths.home, end: true },
  { label: "Account", to: paths.account },
];

function NavItemLink({ item, onNavigate }: { item: NavItem; onNavigate: () => void }) {
  const active = useMatch({ path: item.to, end: item.end ?? false }) !== null;
  return (
    <NavLink
      component={RouterNavLink}
      to={item.to}
      end={item.end}
      label={item.label}
      active={active}
      onClick={onNavigate}
    />
  );
}

export function AppLayout() {
  const [navbarOpened, { toggle: toggleNavbar, close: closeNavbar }] = useDisclosure(false);
  const { data: user } = useMe();
  const logout = useLogout();

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 240, breakpoint: "sm", collapsed: { mobile: !navbarOpened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={navbarOpened}
              onClick={toggleNavbar}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Title order={1} size="h3">
              <Text component={Link} to={paths.home} inherit c="inherit" td="none">
                Parley
              </Text>
            </Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="xs" truncate>
              {user?.email}
            </Text>
            <Button
              variant="default"
              size="xs"
              onClick={() => {
                logout.mutate();
              }}
              loading={logout.isPending}
            >
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar p="xs" aria-label="Main navigation">
        {NAV_ITEMS.map((item) => (
          <NavItemLink key={item.to} item={item} onNavigate={closeNavbar} />
        ))}
      </AppShell.Navbar>

      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
