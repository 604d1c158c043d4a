import { RunRoute } from "../dashboards/RunRoute";

export function SenseiRunPage() {
  return <RunRoute kind="sensei" mode="owner" />;
}
