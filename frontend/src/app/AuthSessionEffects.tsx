import { notifications } from "@mantine/notifications";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { tokenStore } from "../lib/token-store";

const SESSION_ENDED_ID = "session-ended";

/**
 * What happens once when a session ends. The token store fires one transition per session (racing 401s
 * are collapsed there), so this shows at most one message however many polls were refused; the route
 * guard does the redirect.
 */
export function AuthSessionEffects() {
  const queryClient = useQueryClient();

  useEffect(
    () =>
      tokenStore.subscribe(() => {
        if (tokenStore.get() !== null) return;
        // Nothing of the previous user may be shown to the next one.
        queryClient.clear();
        if (tokenStore.lastClearReason() === "unauthorized") {
          notifications.show({
            id: SESSION_ENDED_ID,
            color: "yellow",
            title: "Session ended",
            message: "Your session has expired or was ended elsewhere. Please log in again.",
          });
        }
      }),
    [queryClient],
  );

  return null;
}
