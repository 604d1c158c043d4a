/**
 * The live-update streams (`/api/stream/`) as the server sends them, for the runs in the workspace test data: a
 * run's new events, then the run whenever it changed, then `end` once it is final; the runs lists' stream stays
 * open and quiet. Tests that need a particular sequence use `controlledStream` or `sseResponse` in a handler.
 */
import { http, HttpResponse } from "msw";
import { makeRun, workspaceDb } from "./workspace-db";

/** A SENSEI run of project 1 ("Pizza") simulating the first of its 4 conversations: what a live view follows. */
export function runningRun(id: number) {
  return makeRun({
    id,
    kind: "sensei",
    status: "running",
    created_at: "2026-03-14T09:00:00Z",
    started_at: "2026-03-14T09:00:01Z",
    wait_seconds: 1,
    stage: "simulating",
    progress: { done: 0, total: 4 },
    project: 1,
    project_name: "Pizza",
  });
}

export interface SseMessage {
  event: string;
  data: unknown;
  id?: number;
}

export function sseText(messages: SseMessage[]): string {
  return messages
    .map(
      ({ event, data, id }) =>
        `event: ${event}\n${id === undefined ? "" : `id: ${String(id)}\n`}data: ${JSON.stringify(data)}\n\n`,
    )
    .join("");
}

/** A `text/event-stream` answer sending `messages`, then closing unless `keepOpen` (until the client leaves). */
export function sseResponse(messages: SseMessage[], { keepOpen = false } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`: connected\n\n${sseText(messages)}`));
      if (!keepOpen) controller.close();
    },
  });
  return new HttpResponse(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

/** A stream the test writes to as it goes: `send` messages, then `close` it (a clean end) or `fail` it (a drop). */
export function controlledStream() {
  const encoder = new TextEncoder();
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
      controller.enqueue(encoder.encode(": connected\n\n"));
    },
  });
  return {
    response: () =>
      new HttpResponse(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } }),
    send(...messages: SseMessage[]) {
      control?.enqueue(encoder.encode(sseText(messages)));
    },
    close() {
      control?.close();
    },
    fail() {
      control?.error(new TypeError("network error"));
    },
  };
}

/** How often the fake server looks at the test data for changes to push (the real one is told by PostgreSQL). */
const WATCH_MS = 50;

/**
 * A run's stream as the server sends it: what is new, then `end` once the run is final. While the run goes on it
 * keeps watching the test data, so a test that changes a run (or plans its outcome) sees the change pushed.
 */
function runStream(runId: number, after: number): Response {
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let lastEvent = after;
  let lastRun = "";
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const push = () => {
        const run = workspaceDb.readRun(runId);
        if (!run) return;
        const events = (workspaceDb.state.events.get(runId) ?? []).filter((event) => event.id > lastEvent);
        const messages: SseMessage[] = [];
        if (events.length > 0) {
          lastEvent = events.at(-1)?.id ?? lastEvent;
          messages.push({ event: "events", data: events, id: lastEvent });
        }
        if (JSON.stringify(run) !== lastRun) {
          lastRun = JSON.stringify(run);
          messages.push({ event: "run", data: run });
        }
        const final = run.status !== "queued" && run.status !== "running";
        if (final) messages.push({ event: "end", data: { status: run.status } });
        try {
          if (messages.length > 0) controller.enqueue(encoder.encode(sseText(messages)));
          if (final) {
            clearInterval(timer);
            controller.close();
          }
        } catch {
          clearInterval(timer); // the client went away
        }
      };
      controller.enqueue(encoder.encode(": connected\n\n"));
      push();
      timer = setInterval(push, WATCH_MS);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new HttpResponse(body, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

export const streamHandlers = [
  http.get("/api/stream/runs/", () => sseResponse([], { keepOpen: true })),
  http.get("/api/stream/runs/:id/", ({ request, params }) => {
    const runId = Number(params.id);
    if (!workspaceDb.state.runs.has(runId)) {
      return HttpResponse.json({ detail: "Not found.", code: "not_found" }, { status: 404 });
    }
    return runStream(runId, Number(new URL(request.url).searchParams.get("after") ?? "0"));
  }),
];
