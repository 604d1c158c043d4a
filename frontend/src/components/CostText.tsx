/**
 * A cost in USD that never claims `$0.0000` for LLM calls Parley has no price for: a model missing from the price
 * list (a local server, a new model) is shown as "not priced", and a total that leaves such calls out says so.
 */
import { Text, type TextProps, Tooltip } from "@mantine/core";
import { formatUsd } from "../lib/money";
import { counted } from "../lib/text";

interface CostTextProps extends TextProps {
  usd: number | null | undefined;
  /** How many calls had no price (or `true` when that is all one knows, e.g. a conversation's null cost). */
  unpriced?: number | boolean;
  /** Text before the amount ("Cost "). */
  prefix?: string;
}

function calls(count: number | true): string {
  return count === true ? "Some LLM calls" : counted(count, "LLM call");
}

/** What a cost reads as, and why, for places that need plain text (tables, tests). */
export function describeCost(
  usd: number | null | undefined,
  unpriced: number | boolean = 0,
): { text: string; note: string } {
  const missing = unpriced === true || (typeof unpriced === "number" && unpriced > 0) ? unpriced : 0;
  if (missing === 0) return { text: usd === null || usd === undefined ? "—" : formatUsd(usd), note: "" };
  const why = `${calls(missing)} used a model without a known price, so their cost is not counted.`;
  if (usd === null || usd === undefined || usd === 0) return { text: "not priced", note: why };
  return { text: `≥ ${formatUsd(usd)}`, note: `${why} The amount is what the priced calls cost.` };
}

export function CostText({ usd, unpriced = 0, prefix = "", ...textProps }: CostTextProps) {
  const { text, note } = describeCost(usd, unpriced);
  const body = (
    <Text size="sm" {...textProps} td={note ? "underline dotted" : undefined}>
      {`${prefix}${text}`}
    </Text>
  );
  if (!note) return body;
  return (
    <Tooltip label={note} multiline maw={320} withArrow>
      {/* A focusable wrapper: keyboard users reach the explanation too. */}
      <span tabIndex={0} aria-label={`${prefix}${text}: ${note}`}>
        {body}
      </span>
    </Tooltip>
  );
}
