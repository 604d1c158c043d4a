/**
 * A TRACER report (Markdown written by an LLM from the chatbot's answers), rendered by `SafeMarkdown`: raw HTML
 * in the text is dropped, images are not loaded, and links keep only http(s) and in-page targets.
 */
import { SafeMarkdown } from "../../components/SafeMarkdown";

export function MarkdownReport({ text }: { text: string }) {
  return <SafeMarkdown text={text} htmlAs="skip" />;
}
