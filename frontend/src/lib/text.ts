/** `value`, or `fallback` when it is missing or empty (for optional text fields shown in the UI). */
export function textOr(value: string | null | undefined, fallback: string): string {
  return value === undefined || value === null || value === "" ? fallback : value;
}

/** The noun for `n` things: `one` for exactly one, `many` otherwise ("problem", "problems"). */
export function noun(n: number | null, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** A count with its noun: "1 problem", "0 problems", "3 problems"; unknown (null) as "— problems". */
export function counted(n: number | null, one: string, many = `${one}s`): string {
  return `${n === null ? "—" : String(n)} ${noun(n, one, many)}`;
}
