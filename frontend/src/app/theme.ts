/**
 * The Mantine theme, with colours that meet WCAG AA contrast (4.5:1 for text) in the light scheme, which Mantine's
 * defaults do not: dimmed text, coloured text and the light, outline and subtle variants use a shade dark enough
 * to read on white; filled buttons and badges pick black or white text by contrast; inline links are underlined
 * so they are told apart without colour. In the dark scheme, dimmed, error, link and coloured text take a shade
 * light enough to read on the dark surfaces.
 */
import { type CSSVariablesResolver, createTheme, type MantineColorsTuple } from "@mantine/core";

/** The text contrast the light scheme aims at (AA asks 4.5:1). */
const TARGET = 4.6;

function channels(hex: string): [number, number, number] {
  const value = hex.replace("#", "");
  return [0, 2, 4].map((i) => parseInt(value.slice(i, i + 2), 16)) as [number, number, number];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function darker(hex: string, amount: number): string {
  return `#${channels(hex)
    .map((c) =>
      Math.round(c * (1 - amount))
        .toString(16)
        .padStart(2, "0"),
    )
    .join("")}`;
}

/** The WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

/**
 * The palette's lightest shade from 6 on that reads (4.6:1) on the palette's own shade 2 — the darkest tint its
 * light variants and hovered links sit on, so it reads on white too; darker than shade 9 when none does.
 */
export function readableText(shades: MantineColorsTuple): string {
  const ok = (hex: string) => contrast(hex, shades[2]) >= TARGET && contrast(hex, "#ffffff") >= TARGET;
  for (const shade of [6, 7, 8, 9] as const) if (ok(shades[shade])) return shades[shade];
  let amount = 0;
  while (!ok(darker(shades[9], amount)) && amount < 0.9) amount += 0.05;
  return darker(shades[9], amount);
}

/**
 * The dark scheme's body (dark.7), cards and inputs (dark.6), the darkest surface (dark.8) and the hover surface
 * (dark.5), which the chatbot's bubbles in a transcript sit on.
 */
export const DARK_SURFACES = [5, 6, 7, 8] as const;
/** The background of a yellow alert in the dark scheme, measured: the darkest tint dark-scheme text sits on. */
export const DARK_ALERT = "#733c00";

/** The darkest shade, from 6 down to 0, that reads (4.6:1) on every one of `backgrounds`; shade 0 when none does. */
export function readableOn(shades: MantineColorsTuple, backgrounds: readonly string[]): string {
  for (const shade of [6, 5, 4, 3, 2, 1] as const) {
    if (backgrounds.every((background) => contrast(shades[shade], background) >= TARGET)) return shades[shade];
  }
  return shades[0];
}

export const cssVariablesResolver: CSSVariablesResolver = (theme) => {
  const primary = readableText(theme.colors[theme.primaryColor] ?? theme.colors.indigo);
  const light: Record<string, string> = {
    "--mantine-color-dimmed": theme.colors.gray[7],
    "--mantine-color-error": readableText(theme.colors.red),
    "--mantine-primary-color-light-color": primary,
  };
  for (const [name, shades] of Object.entries(theme.colors)) {
    const readable = readableText(shades);
    light[`--mantine-color-${name}-text`] = readable;
    light[`--mantine-color-${name}-light-color`] = readable;
    light[`--mantine-color-${name}-outline`] = readable;
  }
  // Dark scheme: Mantine's dimmed text (dark.2) reads 4.0:1 on the dark body, red error text 3.3:1, and links
  // 3.0:1 on a yellow alert; lighter shades, chosen the same way as for the light scheme.
  const surfaces = DARK_SURFACES.map((index) => theme.colors.dark[index]);
  const dark: Record<string, string> = {
    "--mantine-color-dimmed": theme.colors.dark[1],
    "--mantine-color-error": readableOn(theme.colors.red, surfaces),
    "--mantine-color-anchor": readableOn(theme.colors[theme.primaryColor] ?? theme.colors.indigo, [
      ...surfaces,
      DARK_ALERT,
    ]),
  };
  for (const [name, shades] of Object.entries(theme.colors)) {
    if (name !== "dark") dark[`--mantine-color-${name}-text`] = readableOn(shades, surfaces);
  }
  return { variables: {}, light, dark };
};

export const theme = createTheme({
  primaryColor: "indigo",
  // Shade 8 carries white text at 5.7:1 and reads as link text on white.
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: "md",
  // Filled colours get black or white text, whichever reads: white only below the luminance where it reaches 4.5:1.
  autoContrast: true,
  luminanceThreshold: 0.18,
  components: {
    Anchor: { defaultProps: { underline: "always" } },
    // Close and clear buttons are icons: each gets a name for screen readers.
    Modal: { defaultProps: { closeButtonProps: { "aria-label": "Close" } } },
    Drawer: { defaultProps: { closeButtonProps: { "aria-label": "Close" } } },
    Notification: {
      defaultProps: { closeButtonProps: { "aria-label": "Close the notification" } },
      styles: { description: { color: "var(--mantine-color-dimmed)" } },
    },
    Alert: { defaultProps: { closeButtonLabel: "Close" } },
    Select: { defaultProps: { clearButtonProps: { "aria-label": "Clear" } } },
    MultiSelect: { defaultProps: { clearButtonProps: { "aria-label": "Clear" } } },
  },
});
