import { Button, Card, Group, Stack, Text } from "@mantine/core";
import { useDocumentTitle } from "@mantine/hooks";
import { PageHeader } from "../../components/PageHeader";
import { SetupChecklist } from "../../components/setup/SetupChecklist";
import { useSetupBannerHidden } from "../../components/setup/use-setup-visibility";

export function SetupPage() {
  useDocumentTitle("Setup guide · Parley");
  const [hidden, setHidden] = useSetupBannerHidden();
  return (
    <Stack gap="lg" maw={820}>
      <PageHeader
        title="Setup guide"
        description="Five steps from nothing to a first test of your chatbot. Each step ticks itself off as you go."
      />
      <Card withBorder padding="lg">
        <SetupChecklist />
      </Card>
      <Group gap="sm">
        <Text size="sm" c="dimmed">
          {hidden
            ? "The setup progress is hidden from the other screens."
            : "The setup progress is shown above the other screens until every step is done."}
        </Text>
        <Button
          size="xs"
          variant="light"
          onClick={() => {
            setHidden(!hidden);
          }}
        >
          {hidden ? "Show progress on every screen" : "Hide progress from other screens"}
        </Button>
      </Group>
    </Stack>
  );
}
