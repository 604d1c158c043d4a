import { MantineProvider } from "@mantine/core";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import { http, HttpResponse } from "msw";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { liveTiming } from "../api/runs/live";
import { server } from "../testing/server";
import { controlledStream, runningRun } from "../testing/stream-handlers";
import { describeEvent, RunProgress } from "./RunProgress";

const RUN = runningRun(9);

function turn(id: number, profile: string, index: number, role: string, text: string) {
  return { id, type: "message", created_at: "2026-03-14T09:00:02Z", data: { profile, index, role, text } };
}

const saved = { ...liveTiming };
beforeEach(() => {
  liveTiming.firstRetryMs = 2_000; // long enough to see the drop on screen
});
afterEach(() => {
  Object.assign(liveTiming, saved);
});

describe("the live log", () => {
  it("labels every SENSEI line with its conversation (profile and number), TRACER's with its session", () => {
    const line = (data: Record<string, unknown>) =>
      describeEvent({ id: 1, type: "message", created_at: "2026-03-14T09:00:00Z", data }).label;
    expect(line({ profile: "pizza lover", index: 1, role: "user" })).toBe("pizza lover #2 · user");
    // Lines written before the index was recorded: the conversation's record id ends with it.
    expect(line({ profile: "pizza lover", conversation: "1a2b3c4d-pizza_lover-0", role: "chatbot" })).toBe(
      "pizza lover #1 · chatbot",
    );
    expect(line({ session: 3, role: "explorer" })).toBe("session 3 · explorer");
  });

  it("shows pushed lines of interleaved conversations apart, and says so when the stream drops", async () => {
    const stream = controlledStream();
    server.use(
      http.get("/api/runs/9/", () => HttpResponse.json(RUN)),
      http.get("/api/runs/9/events/", () => HttpResponse.json({ results: [], next_after: 0 })),
      http.get("/api/stream/runs/9/", () => stream.response()),
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const router = createMemoryRouter([{ path: "/", element: <RunProgress runId={9} /> }]);
    render(
      <MantineProvider>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </MantineProvider>,
    );
    await screen.findByText("Waiting for the first lines…");
    stream.send({
      event: "events",
      data: [turn(1, "pizza", 0, "user", "A large one"), turn(2, "pasta", 0, "user", "Spaghetti please")],
      id: 2,
    });
    const log = await screen.findByRole("list", { name: "Run log" });
    expect(await within(log).findByText("pizza #1 · user")).toBeInTheDocument();
    expect(within(log).getByText("pasta #1 · user")).toBeInTheDocument();
    expect(screen.queryByText("Reconnecting…")).toBeNull();

    stream.fail();
    expect(await screen.findByText("Reconnecting…")).toBeInTheDocument();
    queryClient.clear();
  });
});
