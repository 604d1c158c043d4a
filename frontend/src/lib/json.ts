/**
 * The runtime checks for the JSON the schema leaves free-form (documents, artefacts, events, `stats/`): each reads a
 * value that does not look right as missing rather than trusting it. Typed results need none of them.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
