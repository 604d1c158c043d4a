import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";

import { MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import { type QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { AuthSessionEffects } from "./AuthSessionEffects";
import { cssVariablesResolver, theme } from "./theme";

interface AppProviderProps {
  queryClient: QueryClient;
  children: ReactNode;
}

/** Everything a screen needs around it: theme, notifications, server-state cache, session effects. */
export function AppProvider({ queryClient, children }: AppProviderProps) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <Notifications position="top-right" limit={3} />
      <QueryClientProvider client={queryClient}>
        <AuthSessionEffects />
        {children}
      </QueryClientProvider>
    </MantineProvider>
  );
}
