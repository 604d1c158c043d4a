import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { renderHook, waitFor } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenStore } from "../../lib/token-store";
import { server } from "../../testing/server";
import { controlledStream, runningRun } from "../../testing/stream-handlers";
import { liveTiming, retryDelay, useLiveRun, useLiveRunLists } from "./live";
import { useRunEvents } from "./project-runs";
import { runKeys } from "../query-keys";
import { type Run, useRun } from "./runs";

const RUN = runningRun(7);

function event(id: number, text: string) {
  return { id, type: "message", created_at: "2026-03-14T09:00:02Z", data: { profile: "pizza", index: 0, text } };
}

function setup() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return { queryClient, wrapper };
}

const saved = { ...liveTiming };
beforeEach(() => {
  liveTiming.firstRetryMs = 20;
  liveTiming.lingerMs = 20;
});
afterEach(() => {
  Object.assign(liveTiming, saved);
});

describe("useLiveRun", () => {
  it("says reconnecting when the stream drops, retries, resumes after the last event and reads the run again", async () => {
    const first = controlledStream();
    const second = controlledStream();
    const streams: Request[] = [];
    let reads = 0;
    server.use(
      http.get("/api/runs/:id/", () => {
        reads += 1;
        return HttpResponse.json(RUN);
      }),
      http.get("/api/runs/:id/events/", () => HttpResponse.json({ results: [], next_after: 0 })),
      http.get("/api/stream/runs/:id/", ({ request }) => {
        streams.push(request);
        return (streams.length === 1 ? first : second).response();
      }),
    );
    tokenStore.set("secret-token");
    const { wrapper } = setup();
    const states: (string | null)[] = [];
    const { result } = renderHook(
      () => {
        const state = useLiveRun(7);
        if (states.at(-1) !== state) states.push(state);
        return { run: useRun(7), events: useRunEvents(7, true), state };
      },
      { wrapper },
    );

    await waitFor(() => {
      expect(result.current.state).toBe("live");
    });
    // The token in a header, never in the URL (README D2).
    expect(streams[0]?.headers.get("Authorization")).toBe("Token secret-token");
    expect(streams[0]?.url).not.toContain("secret-token");
    first.send({ event: "events", data: [event(5, "hello")], id: 5 });
    await waitFor(() => {
      expect(result.current.events.data?.map((e) => e.id)).toEqual([5]);
    });
    const readsBefore = reads;

    first.fail();
    await waitFor(() => {
      expect(streams).toHaveLength(2);
    });
    await waitFor(() => {
      expect(result.current.state).toBe("live");
    });
    expect(states).toEqual([null, "connecting", "live", "reconnecting", "live"]);
    expect(streams[1]?.headers.get("Last-Event-ID")).toBe("5");
    await waitFor(() => {
      expect(reads).toBeGreaterThan(readsBefore); // back: what the stream does not resend is read again
    });
    second.send({ event: "events", data: [event(6, "again")], id: 6 });
    await waitFor(() => {
      expect(result.current.events.data?.map((e) => e.id)).toEqual([5, 6]);
    });
  });

  it("puts pushed lines in id order, each once, and the pushed run in the cache", async () => {
    const stream = controlledStream();
    server.use(
      http.get("/api/runs/:id/events/", () => HttpResponse.json({ results: [event(2, "b")], next_after: 2 })),
      http.get("/api/stream/runs/:id/", () => stream.response()),
    );
    const { queryClient, wrapper } = setup();
    const { result } = renderHook(() => useRunEvents(7, true), { wrapper });
    await waitFor(() => {
      expect(result.current.data?.map((e) => e.id)).toEqual([2]);
    });
    stream.send({ event: "events", data: [event(3, "c"), event(2, "b")], id: 3 });
    stream.send({ event: "events", data: [event(1, "a")], id: 3 }); // written earlier, committed later
    stream.send({ event: "run", data: { ...RUN, progress: { done: 1, total: 4 } } });
    await waitFor(() => {
      expect(result.current.data?.map((e) => e.id)).toEqual([1, 2, 3]);
    });
    await waitFor(() => {
      expect(queryClient.getQueryData<Run>(runKeys.detail(7))?.progress).toEqual({ done: 1, total: 4 });
    });
  });

  it("stops for good when the server refuses (not found), and when the run has ended", async () => {
    let refused = 0;
    server.use(
      http.get("/api/stream/runs/404/", () => {
        refused += 1;
        return HttpResponse.json({ detail: "Not found.", code: "not_found" }, { status: 404 });
      }),
    );
    const { wrapper } = setup();
    const missing = renderHook(() => useLiveRun(404), { wrapper });
    await waitFor(() => {
      expect(missing.result.current).toBe("unavailable");
    });

    const stream = controlledStream();
    server.use(http.get("/api/stream/runs/8/", () => stream.response()));
    const finished = renderHook(() => useLiveRun(8), { wrapper });
    stream.send({ event: "run", data: { ...RUN, id: 8, status: "succeeded" } }, { event: "end", data: {} });
    stream.close();
    await waitFor(() => {
      expect(finished.result.current).toBe("ended");
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(refused).toBe(1);
    expect(finished.result.current).toBe("ended");
  });

  it("reconnects at once, without saying so, when the server ends a stream at its time limit", async () => {
    const first = controlledStream();
    const second = controlledStream();
    let opened = 0;
    server.use(
      http.get("/api/stream/runs/:id/", () => {
        opened += 1;
        return (opened === 1 ? first : second).response();
      }),
    );
    const seen: (string | null)[] = [];
    const { wrapper } = setup();
    const { result } = renderHook(
      () => {
        const state = useLiveRun(7);
        seen.push(state);
        return state;
      },
      { wrapper },
    );
    await waitFor(() => {
      expect(result.current).toBe("live");
    });
    first.send({ event: "reconnect", data: {} });
    first.close();
    await waitFor(() => {
      expect(opened).toBe(2);
    });
    expect(seen).not.toContain("reconnecting");
  });
});

describe("useLiveRunLists", () => {
  it("makes the shown run lists read again when the server names changed runs", async () => {
    const stream = controlledStream();
    server.use(http.get("/api/stream/runs/", () => stream.response()));
    const { queryClient, wrapper } = setup();
    queryClient.setQueryData([...runKeys.lists, "dashboard"], { results: [] });
    const { result } = renderHook(() => useLiveRunLists(), { wrapper });
    await waitFor(() => {
      expect(result.current).toBe("live");
    });
    expect(queryClient.getQueryState([...runKeys.lists, "dashboard"])?.isInvalidated).toBe(false);
    stream.send({ event: "runs", data: { runs: [7] } });
    await waitFor(() => {
      expect(queryClient.getQueryState([...runKeys.lists, "dashboard"])?.isInvalidated).toBe(true);
    });
  });
});

describe("retryDelay", () => {
  it("doubles from the first delay up to the maximum, spread by a quarter either way", () => {
    Object.assign(liveTiming, saved);
    expect(retryDelay(1, () => 0.5)).toBe(1_000);
    expect(retryDelay(2, () => 0.5)).toBe(2_000);
    expect(retryDelay(3, () => 0)).toBe(3_000);
    expect(retryDelay(20, () => 1)).toBe(37_500);
  });
});
