/**
 * "Shrink this failure": the owner's short `shrink` run on a failed SENSEI conversation (`backend/runs/shrink_views.py`),
 * which replays the conversation's user turns against the chatbot, finds the shortest script that still fails and
 * pins it as a scripted profile in the test center; and the shrunk failure's bug report (Markdown) or JUnit case.
 *
 * The result is the engine's `ShrinkResult` (`engine/regression/shrink/result.py`), read defensively here: the
 * script and transcript hold the chatbot's and the user's words, rendered as text.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { isBlob, saveBlob } from "../lib/save-blob";
import { api, settle, unwrap } from "./client";
import { toApiError } from "./errors";
import { isRecord } from "./run-results";
import { runKeys } from "./query-keys";

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

export interface ShrinkSummary {
  reproduced: boolean;
  script: string[];
  originalTurns: number | null;
  shrunkTurns: number | null;
  failed: number | null;
  replays: number | null;
  needed: number | null;
  chatbotCalls: number | null;
  llmCalls: number | null;
  check: string;
  reason: string;
  pinned: { id: number; name: string; valid: boolean } | null;
  warnings: string[];
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A finished shrink run's result, every field checked. */
export function readShrinkResult(result: unknown): ShrinkSummary {
  const data = isRecord(result) ? result : {};
  const reproduction = isRecord(data.reproduction) ? data.reproduction : {};
  const failure = isRecord(data.failure) ? data.failure : {};
  const check = isRecord(failure.check) ? failure.check : null;
  const pinned = isRecord(data.pinned) && typeof data.pinned.id === "number" ? data.pinned : null;
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  return {
    reproduced: data.reproduced === true,
    script: strings(data.script),
    originalTurns: num(data.original_turns),
    shrunkTurns: num(data.shrunk_turns),
    failed: num(reproduction.failed),
    replays: num(reproduction.replays),
    needed: num(reproduction.needed),
    chatbotCalls: num(data.chatbot_calls),
    llmCalls: num(data.llm_calls),
    check:
      check === null
        ? "the reply is not an error (HTTP 5xx, timeout, unreadable reply)"
        : `${str(check.kind)} ${str(check.value)}`.trim(),
    reason: str(failure.reason),
    pinned: pinned ? { id: pinned.id as number, name: str(pinned.name), valid: pinned.valid === true } : null,
    // The first warning is the one every shrink carries (it replays real requests); the rest are this run's.
    warnings: strings(data.warnings).slice(1),
  };
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
