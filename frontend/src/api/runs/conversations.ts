/**
 * A SENSEI run's conversations: the filtered, paginated list and one conversation with its record
 * (`engine/conversation.py::ConversationRecord`). Every text in a record came from the chatbot under test or an
 * LLM: it is read into plain strings here and rendered as text by the transcript.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { type Fault, readVerdictProof } from "./faults";
import { useLiveRun } from "./live";
import { runKeys } from "../query-keys";
import type { ResponseJson } from "../types";
import { isRecord, num, str } from "../../lib/json";

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

/** A conversation's error codes (a JSON list in the schema). */
export function readErrorCodes(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : [];
}

export interface TranscriptButton {
  label: string;
  value: string;
  url: string;
}

export interface TranscriptTurn {
  role: "user" | "bot";
  text: string;
  buttons: TranscriptButton[];
  atSeconds: number | null;
  latencySeconds: number | null;
}

export interface RecordError {
  code: number;
  message: string;
  turn: number | null;
}

/** Where the chatbot stated an extracted output, or why the output is missing (`OutputEvidence`). */
export interface OutputEvidenceView {
  turn: number | null;
  quote: string;
  reason: string;
}

/** passed; failed: a chatbot fault; inconclusive: the conversation says nothing about the chatbot. */
export type Verdict = "passed" | "failed" | "inconclusive";

export interface ConversationRecordView {
  id: string;
  verdict: Verdict | null;
  verdictReason: string;
  /** Who is at fault for a failed or inconclusive verdict; null when it passed or for older records. */
  fault: Fault | null;
  /** The chatbot turn that shows the fault (0-based index into `turns`). */
  evidenceTurn: number | null;
  evidence: Map<string, OutputEvidenceView>;
  profile: string;
  language: string;
  goals: string[];
  context: string[];
  inputs: [string, unknown][];
  outputs: [string, unknown][];
  settings: [string, unknown][];
  turns: TranscriptTurn[];
  errors: RecordError[];
  durationSeconds: number | null;
  costUsd: number | null;
}

function entries(value: unknown): [string, unknown][] {
  return isRecord(value) ? Object.entries(value) : [];
}

function readButton(value: unknown): TranscriptButton | null {
  if (typeof value === "string") return { label: value, value, url: "" };
  if (!isRecord(value)) return null;
  const label = str(value.label) || str(value.text) || str(value.title) || str(value.value);
  return label ? { label, value: str(value.value), url: str(value.url) } : null;
}

function readVerdict(value: unknown): Verdict | null {
  return value === "passed" || value === "failed" || value === "inconclusive" ? value : null;
}

/** A stored record; `row`, the API's conversation row, carries who is at fault when the record does not. */
export function readConversationRecord(record: unknown, row?: unknown): ConversationRecordView {
  const data = isRecord(record) ? record : {};
  const proof = readVerdictProof(row, data);
  const usage = isRecord(data.usage) ? data.usage : {};
  const evidence = new Map<string, OutputEvidenceView>();
  for (const [name, item] of entries(data.evidence)) {
    if (isRecord(item)) evidence.set(name, { turn: num(item.turn), quote: str(item.quote), reason: str(item.reason) });
  }
  return {
    id: str(data.id),
    verdict: readVerdict(data.verdict),
    verdictReason: str(data.verdict_reason),
    fault: proof.fault,
    evidenceTurn: proof.evidenceTurn,
    evidence,
    profile: str(data.profile),
    language: str(data.language),
    goals: Array.isArray(data.goals) ? data.goals.map(str) : [],
    context: Array.isArray(data.context) ? data.context.map(str) : [],
    inputs: entries(data.inputs),
    outputs: entries(data.outputs),
    settings: entries(data.settings),
    turns: (Array.isArray(data.turns) ? data.turns.filter(isRecord) : []).map((turn) => ({
      role: turn.role === "user" ? "user" : "bot",
      text: str(turn.text),
      buttons: (Array.isArray(turn.buttons) ? turn.buttons : [])
        .map(readButton)
        .filter((b): b is TranscriptButton => b !== null),
      atSeconds: num(turn.at_s),
      latencySeconds: num(turn.latency_s),
    })),
    errors: (Array.isArray(data.errors) ? data.errors.filter(isRecord) : []).map((error) => ({
      code: num(error.code) ?? 0,
      message: str(error.message),
      turn: num(error.turn),
    })),
    durationSeconds: num(data.duration_s),
    costUsd: num(usage.cost_usd),
  };
}

/**
 * A variable or output value as one line of text: strings as they are, anything else as JSON, missing as "—".
 * (Never HTML: the caller renders the string as a text node.)
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The names of `engine/conversation.py::ErrorCode` (what the stats call `name`). */
const ERROR_NAMES: Record<number, string> = {
  500: "chatbot_crash",
  502: "malformed_reply",
  503: "chatbot_unreachable",
  504: "timeout",
  410: "session_lost",
  429: "rate_limited",
  1000: "fallback_loop",
  1001: "goal_not_completed",
  1002: "goals_not_verified",
  1003: "repetition_loop",
  1004: "check_failed",
  2000: "run_budget_exceeded",
  2001: "conversation_budget_exceeded",
  2002: "budget_refused",
  3000: "user_llm_failed",
  3001: "extraction_failed",
  3002: "user_left_role",
  4000: "cancelled",
};

export function errorName(code: number): string {
  return ERROR_NAMES[code] ?? (code >= 100 && code < 600 ? `http_${String(code)}` : "unknown");
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
