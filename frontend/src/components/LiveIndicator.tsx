/**
 * Says when live updates are interrupted: while a dropped stream reconnects, what is on screen may be behind.
 * Silent otherwise (connecting takes a blink; a finished run needs no stream).
 */
import { Badge, Tooltip } from "@mantine/core";
import type { LiveState } from "../api/runs/live";

export function LiveIndicator({ state }: { state: LiveState | null }) {
  if (state !== "reconnecting") return null;
  return (
    <Tooltip label="The connection for live updates dropped; what you see may be behind until it is back.">
      <Badge color="yellow" variant="light" role="status" aria-live="polite">
        Reconnecting…
      </Badge>
    </Tooltip>
  );
}
