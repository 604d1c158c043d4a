/** How the dashboards write times, costs and statuses. */
import { num } from "../../lib/json";
import { formatUsd } from "../../lib/money";

export { STATUS_COLOR } from "../../components/run-outcome";

export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return "—";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${String(minutes)} min ${String(Math.round(seconds % 60))} s`;
  return `${String(Math.floor(minutes / 60))} h ${String(minutes % 60)} min`;
}

export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return "—";
  return formatUsd(usd);
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? "—" : String(value);
}

/** "5 × 8": the sessions and turns a TRACER or bench run was asked for (its `params`, free-form in the schema). */
export function sessionsTimesTurns(params: Record<string, unknown>): string {
  return `${formatCount(num(params.sessions))} × ${formatCount(num(params.turns))}`;
}

export function formatPercent(share: number | null | undefined): string {
  return share === null || share === undefined ? "—" : `${(share * 100).toFixed(0)}%`;
}

/** A figure already in percent (0…100), as the bench writes them: `66.7%`. */
export function formatPoints(percent: number | null | undefined): string {
  if (percent === null || percent === undefined) return "—";
  return `${percent.toFixed(Number.isInteger(percent) ? 0 : 1)}%`;
}
