import { Card, Stack, Table, Text, Title } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { useMe } from "../../api/account/auth";
import { ChangePasswordForm } from "./ChangePasswordForm";
import { LogoutAllButton } from "./LogoutAllButton";

const joinedFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "long" });

export function AccountPage() {
  useDocumentTitle("Account · Parley");
  const { data: user } = useMe();

  return (
    <Stack gap="lg" maw={720}>
      <Title order={1} size="h2">
        Account
      </Title>

      <Card withBorder padding="lg" radius="md">
        <Title order={2} size="h4" mb="sm">
          Profile
        </Title>
        {user && (
          <Table variant="vertical" layout="fixed" withTableBorder={false}>
            <Table.Tbody>
              <Table.Tr>
                <Table.Th scope="row" w={160}>
                  E-mail
                </Table.Th>
                <Table.Td>{user.email}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th scope="row">Joined</Table.Th>
                <Table.Td>
                  <time dateTime={user.date_joined}>{joinedFormat.format(new Date(user.date_joined))}</time>
                </Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
        )}
      </Card>

      <Card withBorder padding="lg" radius="md">
        <Title order={2} size="h4" mb="sm">
          Change password
        </Title>
        <ChangePasswordForm />
      </Card>

      <Card withBorder padding="lg" radius="md">
        <Title order={2} size="h4" mb={4}>
          Sessions
        </Title>
        <Text size="sm" c="dimmed" mb="md">
          Lost a device or used a shared computer? End every session of your account at once.
        </Text>
        <LogoutAllButton />
      </Card>
    </Stack>
  );
}
