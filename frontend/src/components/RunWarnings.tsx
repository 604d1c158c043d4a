/** What a run warned about (a parameter the model refused and was adapted, fewer sessions than asked…), shown
 * above its figures rather than only in its log. Warnings quote providers and chatbots: shown as text. */
import { Alert, Stack, Text } from "@mantine/core";

export function RunWarnings({ warnings }: { warnings: readonly string[] }) {
  if (warnings.length === 0) return null;
  return (
    <Alert color="yellow" title="Warnings">
      <Stack gap={2}>
        {warnings.map((warning) => (
          <Text key={warning} size="sm">
            {warning}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}
