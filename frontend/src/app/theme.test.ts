import { DEFAULT_THEME, mergeMantineTheme } from "@mantine/core";
import { describe, expect, it } from "vitest";
import { contrast, cssVariablesResolver, DARK_ALERT, DARK_SURFACES, theme } from "./theme";

const merged = mergeMantineTheme(DEFAULT_THEME, theme);
const light: Record<string, string | undefined> = cssVariablesResolver(merged).light;
const dark: Record<string, string | undefined> = cssVariablesResolver(merged).dark;
const surfaces = DARK_SURFACES.map((index) => merged.colors.dark[index]);

describe("the light scheme's colours meet WCAG AA for text", () => {
  it("Mantine's defaults do not (what the theme corrects)", () => {
    expect(contrast(DEFAULT_THEME.colors.gray[6], "#ffffff")).toBeLessThan(4.5); // dimmed text
    expect(contrast(DEFAULT_THEME.colors.teal[6], DEFAULT_THEME.colors.teal[1])).toBeLessThan(4.5); // a light badge
  });

  it("every colour's text, light-variant and outline colour reads on white and on its own tints", () => {
    for (const [name, shades] of Object.entries(merged.colors)) {
      for (const variable of ["text", "light-color", "outline"]) {
        const value = light[`--mantine-color-${name}-${variable}`] ?? "";
        expect(contrast(value, "#ffffff"), `${name} ${variable}`).toBeGreaterThanOrEqual(4.5);
        expect(contrast(value, shades[1]), `${name} ${variable} on its light background`).toBeGreaterThanOrEqual(4.5);
        expect(contrast(value, shades[2]), `${name} ${variable} on its hovered background`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it("dimmed text, errors and the primary colour's light variant read on white", () => {
    for (const variable of ["--mantine-color-dimmed", "--mantine-color-error", "--mantine-primary-color-light-color"]) {
      expect(contrast(light[variable] ?? "", "#ffffff"), variable).toBeGreaterThanOrEqual(4.5);
    }
    // White text on the primary filled colour (buttons).
    const primary = merged.colors[merged.primaryColor]?.[8] ?? "";
    expect(contrast(primary, "#ffffff")).toBeGreaterThanOrEqual(4.5);
  });
});

describe("the dark scheme's text reads on its surfaces", () => {
  it("Mantine's defaults do not (what the theme corrects)", () => {
    expect(contrast(DEFAULT_THEME.colors.dark[2], DEFAULT_THEME.colors.dark[7])).toBeLessThan(4.5); // dimmed
    expect(contrast(DEFAULT_THEME.colors.red[8], DEFAULT_THEME.colors.dark[6])).toBeLessThan(4.5); // an error
  });

  it("dimmed, error, link and every colour's text read on the body, cards and inputs", () => {
    const variables = ["--mantine-color-dimmed", "--mantine-color-error", "--mantine-color-anchor"];
    for (const name of Object.keys(merged.colors)) if (name !== "dark") variables.push(`--mantine-color-${name}-text`);
    for (const variable of variables) {
      for (const surface of surfaces) {
        expect(contrast(dark[variable] ?? "", surface), `${variable} on ${surface}`).toBeGreaterThanOrEqual(4.5);
      }
    }
    expect(contrast(dark["--mantine-color-anchor"] ?? "", DARK_ALERT)).toBeGreaterThanOrEqual(4.5);
  });
});
