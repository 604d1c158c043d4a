import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * The accessibility check (axe-core) of the page as it is now, in the light and the dark scheme: no serious or
 * critical violation, whatever the WCAG level the rule belongs to. Soft, so that one run lists every page's violations; the test still fails.
 * Call it once the page shows what it is about (a heading, a table), not while it is loading.
 */
export async function expectAccessible(page: Page, name: string) {
  // A fading notification or dialog would be measured half-transparent: let running transitions end first (not
  // the endless ones — spinners, striped progress bars — and never longer than two seconds).
  await page.evaluate(() => {
    const finite = document
      .getAnimations()
      .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)));
    const ended = Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
    return Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000))]);
  });
  expect.soft(await seriousViolations(page), `accessibility of ${name}`).toEqual([]);
  // The dark scheme too: Mantine's colours are CSS variables keyed on this attribute, so flipping it restyles the
  // page at once (the graph and the editor pick their own colours and keep the light ones here).
  const scheme = await page.evaluate(() => document.documentElement.getAttribute("data-mantine-color-scheme"));
  await page.evaluate(() => {
    document.documentElement.setAttribute("data-mantine-color-scheme", "dark");
  });
  try {
    expect.soft(await seriousViolations(page), `accessibility of ${name} (dark scheme)`).toEqual([]);
  } finally {
    await page.evaluate((value) => {
      document.documentElement.setAttribute("data-mantine-color-scheme", value ?? "light");
    }, scheme);
  }
}

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${String(violation.impact)}): ${violation.help} — ${violation.nodes
          .slice(0, 4)
          .map((node) => {
            const data = node.any[0]?.data as { fgColor?: string; bgColor?: string } | undefined;
            const colours = data?.fgColor ? ` [${data.fgColor} on ${String(data.bgColor)}]` : "";
            return `${node.target.join(" ")}${colours}`;
          })
          .join(" | ")}`,
    );
}
