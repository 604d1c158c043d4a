import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import type { ReactNode } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { server } from "../testing/server";
import { type Run, type RunStatus, RUN_POLL_MS, useRun } from "./runs";

function run(status: RunStatus): Run {
  return {
    id: 7,
    kind: "ping",
    status,
    created_at: "2026-03-14T09:00:00Z",
    started_at: status === "queued" ? null : "2026-03-14T09:00:01Z",
    finished_at: status === "succeeded" ? "2026-03-14T09:00:02Z" : null,
    result: status === "succeeded" ? { pong: true } : {},
    error_type: "",
    error_message: "",
    trigger_source: "api",
    wait_seconds: status === "queued" ? null : 1,
    duration_seconds: status === "succeeded" ? 1 : null,
    stage: "",
    progress: { done: 0, total: 0 },
    counters: {},
    project: null,
    project_name: null,
    params: {},
    usage: {},
    cost_usd: null,
    owner_name: "User 1",
    is_owner: true,
    cancel_requested: false,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("useRun", () => {
  it("polls while the run is queued or running, and stops once it has finished", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const answers: RunStatus[] = ["queued", "running", "succeeded"];
    let calls = 0;
    server.use(
      http.get("/api/runs/:id/", () =>
        HttpResponse.json(run(answers[Math.min(calls++, answers.length - 1)] ?? "succeeded")),
      ),
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    );

    const { result } = renderHook(() => useRun(7), { wrapper });

    await waitFor(() => {
      expect(result.current.data?.status).toBe("queued");
    });
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS);
    await waitFor(() => {
      expect(result.current.data?.status).toBe("running");
    });
    await vi.advanceTimersByTimeAsync(RUN_POLL_MS);
    await waitFor(() => {
      expect(result.current.data?.status).toBe("succeeded");
    });

    await vi.advanceTimersByTimeAsync(RUN_POLL_MS * 5);
    expect(calls).toBe(3);
    queryClient.clear();
  });
});
