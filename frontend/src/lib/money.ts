/** Amounts of US dollars as the screens write them: two decimals from $1, four below (LLM calls cost cents). */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd >= 1 ? 2 : 4)}`;
}
