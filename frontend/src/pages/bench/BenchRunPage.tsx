import { RunRoute } from "../dashboards/RunRoute";

export function BenchRunPage() {
  return <RunRoute kind="bench" mode="owner" />;
}
