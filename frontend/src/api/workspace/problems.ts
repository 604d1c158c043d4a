import { isRecord } from "../../lib/json";
/** A problem the server found in a YAML document, with its 1-based position when it has one. */

export interface ValidationProblem {
  severity: "error" | "warning";
  message: string;
  line: number | null;
  column: number | null;
  path: string;
  hint: string | null;
}

export function readProblem(raw: unknown): ValidationProblem | null {
  if (!isRecord(raw) || typeof raw.message !== "string") return null;
  return {
    severity: raw.severity === "warning" ? "warning" : "error",
    message: raw.message,
    line: typeof raw.line === "number" ? raw.line : null,
    column: typeof raw.column === "number" ? raw.column : null,
    path: typeof raw.path === "string" ? raw.path : "",
    hint: typeof raw.hint === "string" ? raw.hint : null,
  };
}
