/**
 * Whether the compact setup progress is shown above every screen. Hidden for the rest of the tab's session
 * once dismissed (nothing goes to localStorage); the setup guide page turns it back on.
 */
import { useSessionStorage } from "@mantine/hooks";
import { useMe } from "../../api/account/auth";

export function useSetupBannerHidden() {
  const { data: user } = useMe();
  const [hidden, setHidden] = useSessionStorage<boolean>({
    key: `parley.setup-banner-hidden.${String(user?.id ?? "anonymous")}`,
    defaultValue: false,
    getInitialValueInEffect: false,
  });
  return [hidden, setHidden] as const;
}
