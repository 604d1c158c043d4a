/**
 * Writes JSON-like data as block-style YAML (for showing a stored connector as a connector file, and the
 * technologies' examples). Strings that could be read as something else are double-quoted, JSON-style,
 * which YAML accepts as is.
 */

const PLAIN = /^[A-Za-z_][\w .,/()+-]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function scalar(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (PLAIN.test(text) && !RESERVED.test(text) && !text.endsWith(" ") && !text.includes(": ") && !text.includes(" #"))
    return text;
  return JSON.stringify(text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNested(value: unknown): boolean {
  return (isObject(value) && Object.keys(value).length > 0) || (Array.isArray(value) && value.length > 0);
}

function inline(value: unknown): string {
  if (isObject(value)) return "{}";
  if (Array.isArray(value)) return "[]";
  return scalar(value);
}

function emit(value: unknown, indent: number): string[] {
  const pad = " ".repeat(indent);
  if (isObject(value)) {
    return Object.entries(value).flatMap(([key, child]) =>
      isNested(child)
        ? [`${pad}${scalar(key)}:`, ...emit(child, indent + 2)]
        : [`${pad}${scalar(key)}: ${inline(child)}`],
    );
  }
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (!isNested(item)) return [`${pad}- ${inline(item)}`];
      const lines = emit(item, indent + 2);
      const [first = "", ...rest] = lines;
      return [`${pad}- ${first.slice(indent + 2)}`, ...rest];
    });
  }
  return [`${pad}${scalar(value)}`];
}

/** `value` as a YAML document (no trailing newline for an empty mapping). */
export function toYaml(value: unknown): string {
  const lines = emit(value, 0);
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
