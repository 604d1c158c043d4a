/**
 * A TRACER report (Markdown written by an LLM from the chatbot's answers) rendered safely: react-markdown builds
 * React elements (no innerHTML), raw HTML in the text is dropped (`skipHtml`), images are not loaded, and links
 * keep only http(s) and in-page targets, opening in a new tab without a referrer.
 */
import { Anchor, Code, Table, Typography } from "@mantine/core";
import Markdown, { type Components, defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";

function safeUrl(url: string): string {
  if (url.startsWith("#")) return url;
  const cleaned = defaultUrlTransform(url);
  return /^https?:\/\//i.test(cleaned) ? cleaned : "";
}

const COMPONENTS: Components = {
  a: ({ href, children }) =>
    href ? (
      <Anchor href={href} target={href.startsWith("#") ? undefined : "_blank"} rel="noopener noreferrer nofollow">
        {children}
      </Anchor>
    ) : (
      <span>{children}</span>
    ),
  table: ({ children }) => (
    <Table withTableBorder withColumnBorders fz="sm" my="sm">
      {children}
    </Table>
  ),
  code: ({ children, className }) => <Code className={className}>{children}</Code>,
};

const REMARK_PLUGINS = [remarkGfm];

export function MarkdownReport({ text }: { text: string }) {
  return (
    <Typography>
      <Markdown
        skipHtml
        remarkPlugins={REMARK_PLUGINS}
        disallowedElements={["img"]}
        unwrapDisallowed={false}
        urlTransform={safeUrl}
        components={COMPONENTS}
      >
        {text}
      </Markdown>
    </Typography>
  );
}
