/**
 * What short runs (key test, model list, connection test) put in `result`.
 *
 * The schema types `result` as `unknown` because every run kind fills it differently, so each shape is read
 * with a runtime check: a result that does not look right is treated as missing rather than trusted.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

export interface CheckOutcome {
  ok: boolean;
  message: string;
}

/** `key_test`: `{ok, message}`. */
export function readCheckOutcome(result: unknown): CheckOutcome | null {
  if (!isRecord(result) || typeof result.ok !== "boolean") return null;
  return { ok: result.ok, message: str(result.message) };
}

export interface ModelList extends CheckOutcome {
  models: string[];
  source: "live" | "fallback" | null;
}

/** `key_models`: `{ok, message, models, source}`. */
export function readModelList(result: unknown): ModelList | null {
  const outcome = readCheckOutcome(result);
  if (outcome === null || !isRecord(result)) return null;
  const source = result.source === "live" || result.source === "fallback" ? result.source : null;
  return { ...outcome, models: strings(result.models), source };
}

export interface BotReply {
  messages: string[];
  buttons: string[];
}

export interface ConnectionTest {
  ok: boolean;
  technology: string;
  messageSent: string;
  greeting: BotReply | null;
  reply: BotReply | null;
  rawExcerpt: string;
  latencySeconds: number | null;
  errorCode: string;
  errorMessage: string;
  httpStatus: number | null;
}

function buttonLabel(value: unknown): string {
  if (typeof value === "string") return value;
  if (isRecord(value)) return str(value.text) || str(value.label) || str(value.title) || str(value.payload);
  return "";
}

function readReply(value: unknown): BotReply | null {
  if (!isRecord(value)) return null;
  const messages = Array.isArray(value.messages)
    ? value.messages.map((m) => (typeof m === "string" ? m : isRecord(m) ? str(m.text) : "")).filter(Boolean)
    : [];
  const buttons = Array.isArray(value.buttons) ? value.buttons.map(buttonLabel).filter(Boolean) : [];
  return { messages, buttons };
}

/** `connector_test`: what the chatbot answered, the raw answer and how long it took. */
export function readConnectionTest(result: unknown): ConnectionTest | null {
  if (!isRecord(result) || typeof result.ok !== "boolean") return null;
  return {
    ok: result.ok,
    technology: str(result.technology),
    messageSent: str(result.message_sent),
    greeting: readReply(result.greeting),
    reply: readReply(result.reply),
    rawExcerpt: str(result.raw_excerpt),
    latencySeconds: typeof result.latency_s === "number" ? result.latency_s : null,
    errorCode: str(result.error_code),
    errorMessage: str(result.error_message),
    httpStatus: typeof result.http_status === "number" ? result.http_status : null,
  };
}
