/**
 * "Shrink this failure": the owner's short `shrink` run on a failed SENSEI conversation (`backend/runs/shrink_views.py`),
 * which replays the conversation's user turns against the chatbot, finds the shortest script that still fails and
 * pins it as a scripted profile in the test center; and the shrunk failure's bug report (Markdown) or JUnit case.
 *
 * The result is the engine's `ShrinkResult` (`engine/regression/shrink/result.py`) with where it was pinned, typed
 * by the API schema: the script and transcript hold the chatbot's and the user's words, rendered as text.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { isBlob, saveBlob } from "../../lib/save-blob";
import { api, settle, unwrap } from "../client";
import { toApiError } from "../errors";
import { runKeys } from "../query-keys";
import type { ResultOf } from "./runs";

export interface ShrinkOptions {
  replays?: number;
  needed?: number;
  max_chatbot_calls?: number;
}

/** Starts the shrink run on one conversation; the caller follows the run it returns. */
export function useShrinkConversation(runId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ conversationId, options }: { conversationId: number; options?: ShrinkOptions }) =>
      unwrap(
        api.POST("/api/runs/{id}/conversations/{cid}/shrink/", {
          params: { path: { id: runId, cid: conversationId } },
          body: options ?? {},
        }),
      ),
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
    },
  });
}

export type ShrinkResult = ResultOf<"shrink">;

/** What a replay must show to fail, in words. */
export function shrinkCheck(result: ShrinkResult): string {
  const check = result.failure.check;
  return check === null
    ? "the reply is not an error (HTTP 5xx, timeout, unreadable reply)"
    : `${check.kind} ${check.value}`.trim();
}

/** The run's own warnings: the first one is the one every shrink carries (it replays real requests). */
export function shrinkWarnings(result: ShrinkResult): string[] {
  return result.warnings.slice(1);
}

export type ShrinkReportFormat = "markdown" | "junit";

export async function downloadShrinkReport(runId: number, format: ShrinkReportFormat): Promise<void> {
  const { data, error, response } = await settle(
    api.GET("/api/runs/{id}/shrink-report/{fmt}/", { params: { path: { id: runId, fmt: format } }, parseAs: "blob" }),
  );
  if (!response.ok || !isBlob(data)) throw toApiError(response, error);
  saveBlob(data, `parley-shrink-${String(runId)}.${format === "junit" ? "xml" : "md"}`);
}

export function useDownloadShrinkReport() {
  return useMutation({
    mutationFn: ({ runId, format }: { runId: number; format: ShrinkReportFormat }) =>
      downloadShrinkReport(runId, format),
  });
}
