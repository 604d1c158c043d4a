import { RunRoute } from "../dashboards/RunRoute";

export function TracerRunPage() {
  return <RunRoute kind="tracer" mode="owner" />;
}
