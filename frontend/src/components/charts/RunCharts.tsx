/**
 * The dashboards' charts (Mantine Charts over recharts): errors by type, the response-time distribution, cost per
 * profile, and pass rates over time. Each is a labelled figure with a one-line text summary, so the numbers are
 * readable without the picture too.
 */
import "@mantine/charts/styles.css";
import { BarChart, LineChart } from "@mantine/charts";
import { Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import type { components } from "../../api/schema";
import { counted } from "../../lib/text";
import { describeCost } from "../CostText";

type Schemas = components["schemas"];
type ResponseTimes = Schemas["ResponseTimes"];
type Histogram = Schemas["HistogramBin"];

const CHART_HEIGHT = 220;

function ChartCard({ title, summary, children }: { title: string; summary: string; children: ReactNode }) {
  return (
    <Paper withBorder p="sm" component="figure" m={0} aria-label={title}>
      <Stack gap="xs">
        <Title order={3} size="h6">
          {title}
        </Title>
        {children}
        <Text component="figcaption" size="xs" c="dimmed">
          {summary}
        </Text>
      </Stack>
    </Paper>
  );
}

function Empty({ children }: { children: string }) {
  return (
    <Text size="sm" c="dimmed" py="md" ta="center">
      {children}
    </Text>
  );
}

export function ErrorsByTypeChart({ errors }: { errors: Schemas["ErrorTally"][] }) {
  const total = errors.reduce((sum, error) => sum + error.count, 0);
  const data = errors.map((error) => ({ type: `${String(error.code)} ${error.name}`, count: error.count }));
  return (
    <ChartCard
      title="Errors by type"
      summary={total === 0 ? "No errors." : data.map((row) => `${row.type}: ${String(row.count)}`).join(", ")}
    >
      {total === 0 ? (
        <Empty>No conversation had an error.</Empty>
      ) : (
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="type"
          series={[{ name: "count", label: "Conversations", color: "red.6" }]}
          tickLine="y"
          yAxisProps={{ allowDecimals: false }}
        />
      )}
    </ChartCard>
  );
}

/** Under a second in milliseconds (fast bots answer in a few), else in seconds. */
function seconds(value: number): string {
  return value < 1 ? `${(value * 1000).toFixed(0)} ms` : `${value.toFixed(2)} s`;
}

/** A duration in one unit for a whole chart, with `decimals` after the point. */
function duration(value: number, unit: "ms" | "s", decimals: number): string {
  return unit === "ms" ? `${(value * 1000).toFixed(decimals)} ms` : `${value.toFixed(decimals)} s`;
}

const MORE_DECIMALS = 4;

/**
 * The histogram's bars, each labelled "from–to" with as many decimals as it takes for the two ends to differ (fast
 * bots answer within a millisecond of each other: "1 ms–1 ms" says nothing). Bars whose ends still read the same
 * (the server rounds them) are merged into the next one; when every reply took the same time there is one bar.
 */
export function histogramBars(
  times: Pick<ResponseTimes, "histogram" | "min" | "max">,
): { range: string; count: number }[] {
  const buckets = times.histogram;
  const first = buckets[0];
  const last = buckets.at(-1);
  if (first === undefined || last === undefined) return [];
  const min = times.min ?? first.from;
  const max = times.max ?? last.to;
  const unit = max < 1 ? "ms" : "s";
  const base = unit === "ms" ? 0 : 2;
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  if (min === max)
    return [{ range: duration(min, unit, base + MORE_DECIMALS).replace(/\.?0+(?= m?s$)/, ""), count: total }];

  for (let extra = 0; extra <= MORE_DECIMALS; extra++) {
    const ends = buckets.map((bucket) => [
      duration(bucket.from, unit, base + extra),
      duration(bucket.to, unit, base + extra),
    ]);
    if (ends.every(([from, to]) => from !== to)) {
      return buckets.map((bucket, index) => ({ range: ends[index]?.join("–") ?? "", count: bucket.count }));
    }
  }
  const fmt = (value: number) => duration(value, unit, base + MORE_DECIMALS);
  const bars: { range: string; count: number }[] = [];
  let open: Histogram | null = null;
  for (const bucket of buckets) {
    const merged: Histogram =
      open === null ? bucket : { from: open.from, to: bucket.to, count: open.count + bucket.count };
    if (fmt(merged.from) === fmt(merged.to)) {
      open = merged;
      continue;
    }
    bars.push({ range: `${fmt(merged.from)}–${fmt(merged.to)}`, count: merged.count });
    open = null;
  }
  const lastBar = bars.at(-1);
  if (open !== null && lastBar !== undefined) lastBar.count += open.count; // a flat tail joins the last bar
  return bars;
}

export function ResponseTimeChart({ times }: { times: ResponseTimes }) {
  const fmt = (value: number | null) => (value === null ? "—" : seconds(value));
  const data = histogramBars(times);
  return (
    <ChartCard
      title="Response times"
      summary={
        times.count === 0
          ? "No replies timed yet."
          : `${counted(times.count, "reply", "replies")}: median ${fmt(times.median)}, mean ${fmt(times.mean)}, p90 ${fmt(
              times.p90,
            )}, max ${fmt(times.max)}.`
      }
    >
      {times.count === 0 ? (
        <Empty>No replies timed yet.</Empty>
      ) : (
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="range"
          series={[{ name: "count", label: "Replies", color: "blue.6" }]}
          tickLine="y"
          yAxisProps={{ allowDecimals: false }}
          barProps={{ radius: 2 }}
        />
      )}
    </ChartCard>
  );
}

export function CostPerProfileChart({
  profiles,
  unpricedCalls = 0,
}: {
  profiles: Schemas["ProfileStatistics"][];
  /** LLM calls of the run whose model had no price: their cost is in no bar. */
  unpricedCalls?: number;
}) {
  const data = profiles.map((row) => ({ profile: row.profile, cost: Number(row.cost_usd.toFixed(6)) }));
  const total = profiles.reduce((sum, row) => sum + row.cost_usd, 0);
  const notPriced = unpricedCalls > 0 && total === 0;
  const cost = describeCost(total, unpricedCalls);
  return (
    <ChartCard
      title="Cost per profile"
      summary={
        profiles.length === 0
          ? "No conversations yet."
          : `${cost.text === "not priced" ? "Not priced" : cost.text} in total over ${counted(profiles.length, "profile")}.${
              cost.note ? ` ${cost.note}` : ""
            }`
      }
    >
      {profiles.length === 0 ? (
        <Empty>No conversations yet.</Empty>
      ) : notPriced ? (
        <Empty>The models this run used have no known price, so there is no cost to draw.</Empty>
      ) : (
        <BarChart
          h={CHART_HEIGHT}
          data={data}
          dataKey="profile"
          series={[{ name: "cost", label: "Cost (USD)", color: "teal.6" }]}
          valueFormatter={(value) => `$${value.toFixed(4)}`}
          tickLine="y"
        />
      )}
    </ChartCard>
  );
}

export interface PassRatePoint {
  /** When (a short date and time). */
  label: string;
  /** 0…100. */
  rate: number;
}

export function PassRateChart({ points, title = "Pass rate over time" }: { points: PassRatePoint[]; title?: string }) {
  const last = points.at(-1);
  return (
    <ChartCard
      title={title}
      summary={
        last === undefined
          ? "No finished runs yet."
          : `${counted(points.length, "run")}; the latest passed ${last.rate.toFixed(0)}%.`
      }
    >
      {points.length === 0 ? (
        <Empty>No finished runs yet.</Empty>
      ) : (
        <LineChart
          h={CHART_HEIGHT}
          data={points}
          dataKey="label"
          series={[{ name: "rate", label: "Passed (%)", color: "indigo.6" }]}
          yAxisProps={{ domain: [0, 100] }}
          valueFormatter={(value) => `${value.toFixed(0)}%`}
          curveType="linear"
          withDots
        />
      )}
    </ChartCard>
  );
}
