import { QueryClient } from "@tanstack/react-query";

/**
 * Query defaults in one place. No automatic retries: a failed call shows its message at once, and
 * polling queries (health, running runs) try again on their own schedule anyway.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
