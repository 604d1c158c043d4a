import { RunRoute } from "../dashboards/RunRoute";

export function PublicTracerRunPage() {
  return <RunRoute kind="tracer" mode="public" />;
}

export function PublicSenseiRunPage() {
  return <RunRoute kind="sensei" mode="public" />;
}

export function PublicCheckRunPage() {
  return <RunRoute kind="check" mode="public" />;
}

export function PublicBenchRunPage() {
  return <RunRoute kind="bench" mode="public" />;
}
