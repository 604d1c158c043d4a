/**
 * The only place where the SPA renders HTML from a string. Everything passes through DOMPurify first:
 * scripts, event-handler attributes, `javascript:` URLs, inline styles and forms are removed.
 * ESLint forbids `dangerouslySetInnerHTML` in every other file.
 */
import { Box, type BoxProps } from "@mantine/core";
import DOMPurify from "dompurify";
import { useMemo } from "react";

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select"],
  FORBID_ATTR: ["style"],
};

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, PURIFY_CONFIG);
}

interface SafeHtmlProps extends BoxProps {
  /** Untrusted HTML, for example a chatbot's answer. */
  html: string;
}

export function SafeHtml({ html, ...boxProps }: SafeHtmlProps) {
  const clean = useMemo(() => sanitizeHtml(html), [html]);
  return <Box {...boxProps} dangerouslySetInnerHTML={{ __html: clean }} />;
}
