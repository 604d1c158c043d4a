/**
 * Markdown written by someone we do not trust (the chatbot under test, an LLM), rendered without ever running it.
 *
 * - react-markdown builds React elements: no innerHTML, and no rehype-raw, so HTML in the text is never parsed.
 *   In a chat it stays visible as the text the chatbot sent (`htmlAs="text"`); a report drops it (`"skip"`).
 * - Links keep only http(s) targets (and in-page `#` ones): `javascript:`, `data:` and the like lose their target
 *   and are shown as plain text. Links open in a new tab with rel="noopener noreferrer nofollow", and say where
 *   they go, since the text of a link can claim anything.
 * - Images are never loaded (a remote image tells its server who reads the transcript, and when): each is shown as
 *   its description and address.
 */
import { Anchor, Code, Table, Text, Typography } from "@mantine/core";
import type { ReactNode } from "react";
import Markdown, { type Components, defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";

/** The URL if it is an absolute http(s) URL or an in-page anchor, else "" (which leaves a link without target). */
export function safeMarkdownUrl(url: string): string {
  if (url.startsWith("#")) return url;
  const cleaned = defaultUrlTransform(url);
  return /^https?:\/\//i.test(cleaned) ? cleaned : "";
}

const LINK_AND_IMAGE: Components = {
  a: ({ href, children }) =>
    href ? (
      <Anchor
        href={href}
        target={href.startsWith("#") ? undefined : "_blank"}
        rel="noopener noreferrer nofollow"
        title={href}
        inherit
      >
        {children}
      </Anchor>
    ) : (
      <span>{children}</span>
    ),
  img: ({ alt, src }) => (
    <Text span inherit c="dimmed">
      {`[image${alt ? `: ${alt}` : ""}${typeof src === "string" && src ? ` — ${src}` : ""}]`}
    </Text>
  ),
  table: ({ children }) => (
    <Table withTableBorder withColumnBorders fz="sm" my="sm">
      {children}
    </Table>
  ),
  code: ({ children, className }) => <Code className={className}>{children}</Code>,
  // A code block may scroll sideways: it takes the keyboard focus so that it can be scrolled without a mouse.
  pre: ({ children }) => <pre tabIndex={0}>{children}</pre>,
};

/** In a chat bubble: paragraphs and headings at the bubble's text size, no large titles. */
const CHAT: Components = {
  ...LINK_AND_IMAGE,
  p: ({ children }) => (
    <Text size="sm" my={4} style={{ overflowWrap: "anywhere" }}>
      {children}
    </Text>
  ),
  ...Object.fromEntries(
    (["h1", "h2", "h3", "h4", "h5", "h6"] as const).map((tag) => [
      tag,
      ({ children }: { children?: ReactNode }) => (
        <Text size="sm" fw={700} my={4}>
          {children}
        </Text>
      ),
    ]),
  ),
};

const REMARK_PLUGINS = [remarkGfm];

interface SafeMarkdownProps {
  text: string;
  /** `chat`: compact, for transcript bubbles; `document`: a report with headings. */
  variant?: "chat" | "document";
  /** HTML in the text: shown as the text it is, or left out. Never rendered. */
  htmlAs?: "text" | "skip";
}

export function SafeMarkdown({ text, variant = "document", htmlAs = "text" }: SafeMarkdownProps) {
  const markdown = (
    <Markdown
      skipHtml={htmlAs === "skip"}
      remarkPlugins={REMARK_PLUGINS}
      urlTransform={safeMarkdownUrl}
      components={variant === "chat" ? CHAT : LINK_AND_IMAGE}
    >
      {text}
    </Markdown>
  );
  return variant === "chat" ? markdown : <Typography>{markdown}</Typography>;
}
