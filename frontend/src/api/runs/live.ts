/**
 * Live updates: the server pushes what changes about runs as Server-Sent Events (`/api/stream/`, served by
 * backend/runs/streams.py), read with `fetch` so that the token travels in the Authorization header and never in
 * a URL (README D2). Nothing here polls on a timer.
 *
 * One connection per run, and one for the runs lists, shared by every hook that needs it; the last hook to let go
 * closes it, a moment later, so a re-render or a route change does not reconnect. Each message updates the query
 * cache directly (a run, its log) or marks what it affects as stale (conversations, statistics, lists), which
 * refetches only what is on screen. When a connection drops its state is `reconnecting` and it retries with a
 * growing delay; once it is back, what it may have missed is read again (D3).
 */
import { type EventSourceMessage, fetchEventSource } from "@microsoft/fetch-event-source";
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useSyncExternalStore } from "react";
import { tokenStore } from "../../lib/token-store";
import { runKeys } from "../query-keys";
import { mergeEvents, readRunEvent, type RunEvent } from "./run-cache";
import type { ResponseJson } from "../types";

type RunSnapshot = ResponseJson<"/api/runs/{id}/", "get", 200>;
type RunEventBody = ResponseJson<"/api/runs/{id}/events/", "get", 200>["results"][number];

/**
 * `connecting` until the first answer; `live` while messages can arrive; `reconnecting` after a drop, until the
 * server answers again; `ended` once the run is final (its stream is over); `unavailable` when the server refuses
 * (not found, not allowed), which retrying would not change.
 */
export type LiveState = "connecting" | "live" | "reconnecting" | "ended" | "unavailable";

/** Delays, in milliseconds; tests shorten them. */
export const liveTiming = { firstRetryMs: 1_000, maxRetryMs: 30_000, lingerMs: 1_000 };

/** The wait before retry number `attempt` (1, 2, …): doubling up to the maximum, ±25 % so tabs spread out. */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(liveTiming.maxRetryMs, liveTiming.firstRetryMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + random() / 2));
}

class Refused extends Error {}
class Dropped extends Error {}

interface Handlers {
  onMessage: (message: EventSourceMessage) => void;
  /** After a drop: read again what the stream does not resend. */
  onRecovered: () => void;
}

// Whoever shows a connection's state: told whenever a connection opens, closes or changes state.
const watchers = new Set<() => void>();

function changed() {
  for (const watcher of watchers) watcher();
}

function watch(watcher: () => void) {
  watchers.add(watcher);
  return () => {
    watchers.delete(watcher);
  };
}

class Channel {
  state: LiveState = "connecting";
  users = 0;
  private attempts = 0;
  private over = false;
  private again = false;
  private readonly controller = new AbortController();
  private lingering: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly url: string,
    private readonly handlers: Handlers,
    private readonly onClosed: () => void,
  ) {
    void this.open();
  }

  acquire() {
    this.users += 1;
    clearTimeout(this.lingering);
  }

  release() {
    this.users -= 1;
    if (this.users > 0) return;
    this.lingering = setTimeout(() => {
      this.close();
    }, liveTiming.lingerMs);
  }

  close() {
    clearTimeout(this.lingering);
    this.controller.abort();
    this.onClosed();
  }

  private set(state: LiveState) {
    if (this.state === state) return;
    this.state = state;
    changed();
  }

  private async open() {
    try {
      await fetchEventSource(this.url, {
        signal: this.controller.signal,
        // A hidden tab keeps its streams: the library's default would close them and reconnect on focus.
        openWhenHidden: true,
        fetch: fetchWithToken,
        onopen: async (response) => {
          const type = response.headers.get("content-type") ?? "";
          if (response.ok && type.startsWith("text/event-stream")) {
            if (this.state === "reconnecting") this.handlers.onRecovered();
            this.attempts = 0;
            this.set("live");
            return;
          }
          // Not found, not allowed, signed out: asking again will not help. Anything else (a proxy's 502
          // while the stream server restarts, say) is a drop.
          if ([401, 403, 404, 405].includes(response.status)) throw new Refused(String(response.status));
          await response.body?.cancel();
          throw new Dropped(String(response.status));
        },
        onmessage: (message) => {
          if (message.event === "end") {
            this.over = true;
            this.set("ended");
          } else if (message.event === "reconnect") {
            this.again = true; // the server's time limit for one stream: reconnect at once, still live
          } else if (message.event === "unavailable") {
            throw new Dropped("unavailable");
          } else {
            this.handlers.onMessage(message);
          }
        },
        onclose: () => {
          if (!this.over) throw new Dropped("closed");
        },
        onerror: (error: unknown) => {
          if (error instanceof Refused) throw error;
          if (this.again) {
            this.again = false;
            return 0;
          }
          this.attempts += 1;
          this.set("reconnecting");
          return retryDelay(this.attempts);
        },
      });
    } catch {
      this.set("unavailable");
    }
  }
}

function fetchWithToken(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  // The current token at each (re)connection, so a stream follows a new login.
  const headers = new Headers(init?.headers);
  const token = tokenStore.get();
  if (token === null) headers.delete("Authorization");
  else headers.set("Authorization", `Token ${token}`);
  return globalThis.fetch(input, { ...init, headers });
}

// Channels per query client: each test has its own client, and a page has one.
const channels = new WeakMap<QueryClient, Map<string, Channel>>();

function channelsOf(queryClient: QueryClient): Map<string, Channel> {
  let found = channels.get(queryClient);
  if (found === undefined) {
    found = new Map();
    channels.set(queryClient, found);
  }
  return found;
}

const openChannels = new Set<Channel>();

/** Closes every connection at once (tests, between cases). */
export function closeLiveChannels() {
  for (const channel of [...openChannels]) channel.close();
}

function acquire(queryClient: QueryClient, key: string, url: () => string, handlers: Handlers): () => void {
  const own = channelsOf(queryClient);
  let channel = own.get(key);
  if (channel === undefined) {
    const created: Channel = new Channel(url(), handlers, () => {
      if (own.get(key) === created) own.delete(key);
      openChannels.delete(created);
      changed();
    });
    own.set(key, created);
    openChannels.add(created);
    channel = created;
    changed();
  }
  channel.acquire();
  const held = channel;
  return () => {
    held.release();
  };
}

function useChannelState(queryClient: QueryClient, key: string | null): LiveState | null {
  const read = useCallback(
    () => (key === null ? null : (channelsOf(queryClient).get(key)?.state ?? null)),
    [queryClient, key],
  );
  return useSyncExternalStore(watch, read);
}

function streamUrl(path: string): string {
  // Absolute, like the API client's, so that `fetch` accepts it outside a browser too (tests).
  return `${globalThis.location.origin}/api/stream/${path}`;
}

// -- one run -------------------------------------------------------------------------------------------------

function runChannelKey(runId: number) {
  return `run:${String(runId)}`;
}

function runHandlers(queryClient: QueryClient, runId: number): Handlers {
  const refreshDerived = () => {
    void queryClient.invalidateQueries({ queryKey: runKeys.conversations(runId) });
    void queryClient.invalidateQueries({ queryKey: runKeys.stats(runId) });
  };
  return {
    onMessage(message) {
      if (message.event === "run") {
        const run = JSON.parse(message.data) as RunSnapshot;
        const before = queryClient.getQueryData<RunSnapshot>(runKeys.detail(runId));
        queryClient.setQueryData(runKeys.detail(runId), run);
        if (before?.status !== run.status) {
          void queryClient.invalidateQueries({ queryKey: runKeys.lists });
          if (run.status !== "queued" && run.status !== "running") refreshDerived();
        }
      } else if (message.event === "events") {
        const incoming = (JSON.parse(message.data) as RunEventBody[]).map(readRunEvent);
        queryClient.setQueryData<RunEvent[]>(runKeys.events(runId), (held) => mergeEvents(held ?? [], incoming));
      } else if (message.event === "conversations") {
        refreshDerived();
      }
    },
    onRecovered() {
      void queryClient.invalidateQueries({ queryKey: runKeys.detail(runId) });
      refreshDerived();
    },
  };
}

/**
 * Follows run `runId` while the caller passes its id (null: not now), and returns the connection's state.
 * The run (`runKeys.detail`) and its log (`runKeys.events`) are kept up to date in the cache.
 */
export function useLiveRun(runId: number | null): LiveState | null {
  const queryClient = useQueryClient();
  const key = runId === null ? null : runChannelKey(runId);
  useEffect(() => {
    if (runId === null) return undefined;
    return acquire(
      queryClient,
      runChannelKey(runId),
      () => {
        // The log already held is not sent again.
        const last = queryClient.getQueryData<RunEvent[]>(runKeys.events(runId))?.at(-1);
        return streamUrl(`runs/${String(runId)}/${last ? `?after=${String(last.id)}` : ""}`);
      },
      runHandlers(queryClient, runId),
    );
  }, [queryClient, runId]);
  return useChannelState(queryClient, key);
}

// -- the runs lists ------------------------------------------------------------------------------------------

const LISTS_KEY = "runs";

/** While `enabled`, every list of runs refetches (if shown) when one of the runs the visitor may see changes. */
export function useLiveRunLists(enabled = true): LiveState | null {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return undefined;
    const refresh = () => {
      void queryClient.invalidateQueries({ queryKey: runKeys.lists });
    };
    return acquire(queryClient, LISTS_KEY, () => streamUrl("runs/"), {
      onMessage(message) {
        if (message.event === "runs") refresh();
      },
      onRecovered: refresh,
    });
  }, [queryClient, enabled]);
  return useChannelState(queryClient, enabled ? LISTS_KEY : null);
}
