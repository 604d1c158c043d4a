/** The comparison page's URL: a SENSEI run against its project's baseline, or against a named run. */
export function comparePath(
  runId: number,
  mode: "owner" | "public" = "owner",
  options: { baseline?: number | null; threshold?: number | null } = {},
): string {
  const query = new URLSearchParams();
  if (options.baseline) query.set("baseline", String(options.baseline));
  if (options.threshold) query.set("threshold", String(options.threshold));
  const search = query.toString();
  return `${mode === "public" ? "/public" : ""}/sensei/${String(runId)}/compare${search ? `?${search}` : ""}`;
}

/** The coverage map's URL: a SENSEI run over its project's latest TRACER graph, or over a named TRACER run. */
export function coveragePath(runId: number, mode: "owner" | "public" = "owner", tracer?: number | null): string {
  const search = tracer ? `?tracer=${String(tracer)}` : "";
  return `${mode === "public" ? "/public" : ""}/sensei/${String(runId)}/coverage${search}`;
}
