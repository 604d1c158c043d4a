/** The signed-in frame: header (name, colour scheme, user, log out), navigation, setup progress, the screen. */
import {
  ActionIcon,
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  ScrollArea,
  Text,
  Title,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Link, NavLink as RouterNavLink, Outlet, useLocation, useMatch } from "react-router";
import { useLogout, useMe } from "../api/account/auth";
import { paths } from "../lib/paths";
import { SetupBanner } from "./setup/SetupBanner";
import { useSetupBannerHidden } from "./setup/use-setup-visibility";

export interface NavItem {
  label: string;
  to: string;
  /** Match the path exactly (for `/`, which prefixes every path). */
  end?: boolean;
}

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

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme("light");
  const next = computed === "dark" ? "light" : "dark";
  const label = `Switch to ${next} mode`;
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={label}
        onClick={() => {
          setColorScheme(next);
        }}
      >
        <svg
          width="18"
          height="18"
          viewBox="0 0 24 24"
          aria-hidden="true"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          {computed === "dark" ? (
            <>
              <circle cx="12" cy="12" r="4" />
              <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
            </>
          ) : (
            <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" />
          )}
        </svg>
      </ActionIcon>
    </Tooltip>
  );
}

interface AppLayoutProps {
  navItems: readonly NavItem[];
}

export function AppLayout({ navItems }: AppLayoutProps) {
  const [navbarOpened, { toggle: toggleNavbar, close: closeNavbar }] = useDisclosure(false);
  const { data: user } = useMe();
  const logout = useLogout();
  const location = useLocation();
  const [setupHidden, setSetupHidden] = useSetupBannerHidden();

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
            <ColorSchemeToggle />
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
        <AppShell.Section grow component={ScrollArea}>
          {navItems.map((item) => (
            <NavItemLink key={item.to} item={item} onNavigate={closeNavbar} />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>

      <AppShell.Main>
        {!setupHidden && location.pathname !== paths.setup && (
          <SetupBanner
            onDismiss={() => {
              setSetupHidden(true);
            }}
          />
        )}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
