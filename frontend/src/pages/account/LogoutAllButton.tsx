import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useLogoutAll } from "../../api/account/auth";
import { ServerErrorAlert } from "../../components/ServerErrorAlert";

/** Revoking every session is not undoable, so it asks first. */
export function LogoutAllButton() {
  const [opened, { open, close }] = useDisclosure(false);
  const logoutAll = useLogoutAll();

  const cancel = () => {
    logoutAll.reset();
    close();
  };

  return (
    <>
      <Group>
        <Button color="red" variant="light" onClick={open}>
          Log out of all devices
        </Button>
      </Group>
      <Modal opened={opened} onClose={cancel} title="Log out of all devices?" centered>
        <Stack gap="md">
          <Text size="sm">Every session ends, including this one. You will need your password to log in again.</Text>
          <ServerErrorAlert error={logoutAll.error} title="Could not log out everywhere" />
          <Group justify="flex-end">
            <Button variant="default" onClick={cancel}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={logoutAll.isPending}
              onClick={() => {
                logoutAll.mutate();
              }}
            >
              Log out everywhere
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
