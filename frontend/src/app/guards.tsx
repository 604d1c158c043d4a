/** Route guards: the one place that decides who may see which screen. */
import { Alert, Button, Center, Stack } from "@mantine/core";
import { Navigate, Outlet, useLocation, useSearchParams } from "react-router";
import { useMe } from "../api/account/auth";
import { ApiError } from "../api/errors";
import { FullPageLoader } from "../components/FullPageLoader";
import { paths, safeNext } from "../lib/paths";
import { tokenStore, useToken } from "../lib/token-store";
import { useResumingSession } from "./session-resume";

/**
 * Signed-in screens. Without a token: to the login page, remembering where the user wanted to go — unless the
 * browser is kept signed in, in which case the tab first gets its own token (app/session-resume.ts).
 */
export function RequireAuth() {
  const token = useToken();
  const location = useLocation();
  const me = useMe();
  const resuming = useResumingSession();

  if (resuming) return <FullPageLoader />;
  if (token === null) {
    // After an explicit log-out the user starts over at home; otherwise they come back here.
    const next = tokenStore.lastClearReason() === "logout" ? null : location.pathname + location.search + location.hash;
    return <Navigate to={paths.login(next)} replace />;
  }
  if (me.isPending) return <FullPageLoader />;
  if (me.isError) {
    // A 401 has already cleared the token (see api/client.ts) and this guard re-renders into the redirect.
    const detail = me.error instanceof ApiError ? me.error.detail : "Something went wrong.";
    return (
      <Center h="100dvh" p="md">
        <Stack maw={420}>
          <Alert color="red" title="Could not load your account">
            {detail}
          </Alert>
          <Button onClick={() => void me.refetch()}>Try again</Button>
        </Stack>
      </Center>
    );
  }
  return <Outlet />;
}

/** Login and sign-up. With a token: straight on to `?next=` (when it is a safe in-app path) or home. */
export function RequireAnonymous() {
  const token = useToken();
  const [searchParams] = useSearchParams();
  const resuming = useResumingSession();
  if (resuming) return <FullPageLoader />;
  if (token !== null) return <Navigate to={safeNext(searchParams.get("next")) ?? paths.home} replace />;
  return <Outlet />;
}
