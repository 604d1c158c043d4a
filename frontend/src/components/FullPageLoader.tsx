import { Center, Loader } from "@mantine/core";

export function FullPageLoader() {
  return (
    <Center h="100dvh">
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}
