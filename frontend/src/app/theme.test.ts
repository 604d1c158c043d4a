import { DEFAULT_THEME, mergeMantineTheme } from "@mantine/core";
import { describe, expect, it } from "vitest";
import { contrast, cssVariablesResolver, theme } from "./theme";

const merged = mergeMantineTheme(DEFAULT_THEME, theme);
const light: Record<string, string | undefined> = cssVariablesResolver(merged).light;

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
