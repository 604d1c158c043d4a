/**
 * A SENSEI run's conversations: the filtered, paginated list and one conversation with its record
 * (`engine/conversation.py::ConversationRecord`, typed by the API schema). Every text in a record came from the
 * chatbot under test or an LLM: the transcript renders it as text.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import type { Fault } from "./faults";
import { useLiveRun } from "./live";
import { runKeys } from "../query-keys";
import type { components } from "../schema";
import type { ResponseJson } from "../types";

export type ConversationRow = ResponseJson<"/api/runs/{id}/conversations/", "get", 200>["results"][number];

export interface ConversationFilters {
  page: number;
  profile?: string | null;
  hasErrors?: boolean | null;
  errorCode?: number | null;
  verdict?: ConversationVerdict | null;
  /** Who is at fault (`?fault=`; not in the generated schema yet). */
  fault?: Fault | null;
}

export type ConversationVerdict = ConversationRow["verdict"];

export function getConversationsPage(runId: number, filters: ConversationFilters, signal?: AbortSignal) {
  const query: {
    page: number;
    profile?: string;
    has_errors?: boolean;
    error_code?: number;
    verdict?: ConversationVerdict;
    fault?: Fault;
  } = { page: filters.page };
  if (filters.profile) query.profile = filters.profile;
  if (filters.hasErrors !== undefined && filters.hasErrors !== null) query.has_errors = filters.hasErrors;
  if (filters.errorCode !== undefined && filters.errorCode !== null) query.error_code = filters.errorCode;
  if (filters.verdict) query.verdict = filters.verdict;
  if (filters.fault) query.fault = filters.fault;
  return unwrap(api.GET("/api/runs/{id}/conversations/", { params: { path: { id: runId }, query }, signal }));
}

/** A page of a run's conversations; while `live`, re-read when the server says a conversation was stored. */
export function useConversationsPage(runId: number, filters: ConversationFilters, live: boolean) {
  useLiveRun(live ? runId : null);
  return useQuery({
    queryKey: runKeys.conversationList(runId, filters),
    queryFn: ({ signal }) => getConversationsPage(runId, filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function getConversation(runId: number, id: number, signal?: AbortSignal) {
  return unwrap(
    api.GET("/api/runs/{id}/conversations/{cid}/", { params: { path: { id: runId, cid: String(id) } }, signal }),
  );
}

export function useConversation(runId: number, id: number | null) {
  return useQuery({
    queryKey: runKeys.conversation(runId, id ?? 0),
    queryFn: ({ signal }) => getConversation(runId, id ?? 0, signal),
    enabled: id !== null,
    staleTime: Infinity,
  });
}

/** One stored conversation (`engine/conversation.py::ConversationRecord`), typed by the API schema. */
export type ConversationRecord = components["schemas"]["ConversationRecord"];
export type TranscriptTurn = components["schemas"]["Turn"];
export type TranscriptButton = components["schemas"]["Button"];
export type JsonValue = components["schemas"]["JsonValue"];

/** passed; failed: a chatbot fault; inconclusive: the conversation says nothing about the chatbot. */
export type Verdict = NonNullable<ConversationRecord["verdict"]>;

/**
 * What the conversation says about the chatbot, decided by the current verdict rules: the conversation row's
 * verdict, reason, who is at fault and the chatbot turn that shows it (a record decided by older rules is decided
 * again by the server, so the row and never the stored record is read for these).
 */
export type Decision = Pick<ConversationRow, "verdict" | "verdict_reason" | "fault" | "evidence_turn">;

/** How it was planned and how it ended, the fields that apply, as name/value rows. */
export function recordDetails(record: ConversationRecord): [string, JsonValue][] {
  const { reference, ...settings } = record.settings;
  const details: Record<string, JsonValue> = { ...reference, ...settings, ...record.outcome };
  return Object.entries(details).filter(([, value]) => value !== null);
}

/**
 * A variable or output value as one line of text: strings as they are, anything else as JSON, missing as "—".
 * (Never HTML: the caller renders the string as a text node.)
 */
export function formatValue(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * Finds the stored conversation a check result names (its record id, `<8 hex>-<profile slug>-<index>`) among the
 * SENSEI runs the check read: the server matches the record id exactly, one request per run at most.
 */
export async function findConversation(
  senseiRuns: number[],
  recordId: string,
  signal?: AbortSignal,
): Promise<{ runId: number; conversationId: number } | null> {
  for (const runId of senseiRuns) {
    const page = await unwrap(
      api.GET("/api/runs/{id}/conversations/", {
        params: { path: { id: runId }, query: { record: recordId } },
        signal,
      }),
    );
    const row = page.results[0];
    if (row) return { runId, conversationId: row.id };
  }
  return null;
}

export function useFoundConversation(senseiRuns: number[], recordId: string | null) {
  return useQuery({
    queryKey: runKeys.findConversation(senseiRuns, recordId),
    queryFn: ({ signal }) => findConversation(senseiRuns, recordId ?? "", signal),
    enabled: recordId !== null,
    staleTime: Infinity,
  });
}
