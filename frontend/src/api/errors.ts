import { isRecord } from "../lib/json";
/**
 * Turns any failed API call into one `ApiError` carrying the server's human message.
 *
 * The backend's error body is `{detail, code, fields?}`. The body is validated at runtime rather than
 * trusted, because a proxy (nginx 502 page) or an unexpected server error may answer with something else.
 */

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  override readonly name = "ApiError";

  constructor(
    /** HTTP status, or 0 when the request never got an answer. */
    readonly status: number,
    /** Human-readable message, safe to show as is. */
    readonly detail: string,
    /** Machine-readable code from the server (`invalid_credentials`, `throttled`, ...). */
    readonly code: string,
    /** Validation messages per request field; empty when the error is not about fields. */
    readonly fields: FieldErrors = {},
  ) {
    super(detail);
  }
}

function parseFields(value: unknown): FieldErrors {
  if (!isRecord(value)) return {};
  const fields: FieldErrors = {};
  for (const [name, messages] of Object.entries(value)) {
    if (Array.isArray(messages)) fields[name] = messages.filter((m): m is string => typeof m === "string");
    else if (typeof messages === "string") fields[name] = [messages];
  }
  return fields;
}

/** Builds an `ApiError` from a non-2xx response and its parsed body (JSON object, text, or undefined). */
export function toApiError(response: Response, body: unknown): ApiError {
  if (isRecord(body) && typeof body.detail === "string") {
    const code = typeof body.code === "string" ? body.code : "error";
    return new ApiError(response.status, body.detail, code, parseFields(body.fields));
  }
  return new ApiError(
    response.status,
    `The server answered with an unexpected error (HTTP ${String(response.status)}). Please try again.`,
    "unexpected_response",
  );
}

/** What a failed `fetch` (no response at all) becomes. */
export function networkError(): ApiError {
  return new ApiError(0, "Could not reach the server. Check your connection and try again.", "network_error");
}

/**
 * Splits an error's field messages into the ones a form can show under its inputs and the rest
 * (for example `non_field_errors`), which belong in the form's alert.
 */
export function splitFieldErrors<K extends string>(
  error: ApiError,
  formFields: readonly K[],
): { byField: Partial<Record<K, string>>; other: string[] } {
  const byField: Partial<Record<K, string>> = {};
  const other: string[] = [];
  for (const [name, messages] of Object.entries(error.fields)) {
    const known = formFields.find((f) => f === name);
    if (known !== undefined && messages.length > 0) byField[known] = messages.join(" ");
    else other.push(...messages);
  }
  return { byField, other };
}
