/** `value`, or `fallback` when it is missing or empty (for optional text fields shown in the UI). */
export function textOr(value: string | null | undefined, fallback: string): string {
  return value === undefined || value === null || value === "" ? fallback : value;
}
