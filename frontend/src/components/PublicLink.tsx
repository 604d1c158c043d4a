/**
 * The address of a public project's read-only dashboards, with a copy button: what "anyone with the link" gets.
 * The link is built from the address the app is served at, so it works behind any host name or proxy.
 */
import { Anchor, Button, Card, CopyButton, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { Link } from "react-router";
import { paths } from "../lib/paths";

export function publicProjectUrl(projectId: number): string {
  return new URL(paths.publicProject(projectId), window.location.origin).href;
}

/** The link in a read-only field, a copy button, and a way to open it here. */
export function PublicLinkField({ projectId }: { projectId: number }) {
  const url = publicProjectUrl(projectId);
  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-end" wrap="nowrap">
        <TextInput
          label="Public link"
          value={url}
          readOnly
          style={{ flex: 1 }}
          onFocus={(event) => {
            event.currentTarget.select();
          }}
        />
        <CopyButton value={url}>
          {({ copied, copy }) => (
            <Button variant={copied ? "light" : "default"} color={copied ? "teal" : undefined} onClick={copy}>
              {copied ? "Copied" : "Copy link"}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Anchor component={Link} to={paths.publicProject(projectId)} size="sm">
        Open the public page
      </Anchor>
    </Stack>
  );
}

/** The test center's reminder that this project is public, and its link. */
export function PublicLinkCard({ projectId }: { projectId: number }) {
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="public-link-title">
      <Stack gap="xs">
        <Title order={2} size="h5" id="public-link-title">
          This project is public
        </Title>
        <Text size="sm" c="dimmed">
          Anyone with this link can read its runs, reports and conversations (not its connector, key or budget).
        </Text>
        <PublicLinkField projectId={projectId} />
      </Stack>
    </Card>
  );
}
