import { RunRoute } from "../dashboards/RunRoute";

export function CheckRunPage() {
  return <RunRoute kind="check" mode="owner" />;
}
