import { describe, expect, it } from "vitest";
import { histogramBars } from "./RunCharts";

/** Ten equal buckets between `low` and `high`, as `runs/exports.py::_histogram` writes them (rounded to 0.1 ms). */
function histogram(low: number, high: number, counts: number[]) {
  const width = (high - low) / counts.length;
  return counts.map((count, i) => ({
    from: Math.round((low + i * width) * 10_000) / 10_000,
    to: Math.round((low + (i + 1) * width) * 10_000) / 10_000,
    count,
  }));
}

describe("histogramBars", () => {
  it("never labels a bar with two equal ends, adding the decimals it takes", () => {
    // A fast bot: every reply between 1.0 and 1.9 ms.
    const bars = histogramBars({
      histogram: histogram(0.001, 0.0019, [3, 0, 1, 0, 0, 2, 0, 0, 1, 1]),
      min: 0.001,
      max: 0.0019,
    });
    expect(bars).not.toHaveLength(0);
    for (const bar of bars) {
      const [from, to] = bar.range.split("–");
      expect(from).not.toBe(to);
      expect(bar.range).toMatch(/^\d+\.\d+ ms–\d+\.\d+ ms$/);
    }
    expect(bars.reduce((sum, bar) => sum + bar.count, 0)).toBe(8);
  });

  it("merges bars whose ends the server rounded to the same value", () => {
    const bars = histogramBars({
      histogram: [
        { from: 0.001, to: 0.001, count: 2 },
        { from: 0.001, to: 0.0011, count: 1 },
        { from: 0.0011, to: 0.0012, count: 4 },
      ],
      min: 0.001,
      max: 0.0012,
    });
    expect(bars).toEqual([
      { range: "1.0000 ms–1.1000 ms", count: 3 },
      { range: "1.1000 ms–1.2000 ms", count: 4 },
    ]);
  });

  it("shows one bar when every reply took the same time", () => {
    expect(
      histogramBars({ histogram: histogram(0.001, 1.001, [5, 0, 0, 0, 0, 0, 0, 0, 0, 0]), min: 0.001, max: 0.001 }),
    ).toEqual([{ range: "1 ms", count: 5 }]);
  });

  it("keeps the plain labels when they already differ", () => {
    const bars = histogramBars({ histogram: histogram(0.5, 2.5, [1, 2]), min: 0.5, max: 2.5 });
    expect(bars).toEqual([
      { range: "0.50 s–1.50 s", count: 1 },
      { range: "1.50 s–2.50 s", count: 2 },
    ]);
  });
});
