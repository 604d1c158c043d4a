import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { server } from "../../testing/server";
import { controlledStream } from "../../testing/stream-handlers";
import { makeRun } from "../../testing/workspace-db";
import { type Run, type RunStatus, useRun } from "./runs";

function run(status: RunStatus): Run {
  return makeRun({
    id: 7,
    status,
    created_at: "2026-03-14T09:00:00Z",
    started_at: status === "queued" ? null : "2026-03-14T09:00:01Z",
    finished_at: status === "succeeded" ? "2026-03-14T09:00:02Z" : null,
    result: status === "succeeded" ? { kind: "ping", pong: true, worker: "w1", message: "" } : null,
    wait_seconds: status === "queued" ? null : 1,
    duration_seconds: status === "succeeded" ? 1 : null,
    progress: { done: 0, total: 0 },
  });
}

describe("useRun", () => {
  it("shows each state the server pushes, without polling, and lets go of the stream once the run has finished", async () => {
    const stream = controlledStream();
    let reads = 0;
    let streams = 0;
    server.use(
      http.get("/api/runs/:id/", () => {
        reads += 1;
        return HttpResponse.json(run("queued"));
      }),
      http.get("/api/stream/runs/:id/", () => {
        streams += 1;
        return stream.response();
      }),
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    );

    const { result } = renderHook(() => useRun(7), { wrapper });
    await waitFor(() => {
      expect(result.current.data?.status).toBe("queued");
    });
    stream.send({ event: "run", data: run("running") });
    await waitFor(() => {
      expect(result.current.data?.status).toBe("running");
    });
    stream.send({ event: "run", data: run("succeeded") }, { event: "end", data: { status: "succeeded" } });
    await waitFor(() => {
      expect(result.current.data?.result).toEqual({ kind: "ping", pong: true, worker: "w1", message: "" });
    });
    stream.close();

    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reads).toBe(1);
    expect(streams).toBe(1);
    queryClient.clear();
  });
});
