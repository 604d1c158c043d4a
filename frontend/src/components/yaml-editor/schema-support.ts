/** CodeMirror extensions driven by a JSON Schema: key/value completion and hover docs. Text only, no HTML. */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";
import { type Diagnostic } from "@codemirror/lint";
import type { Text } from "@codemirror/state";
import { hoverTooltip } from "@codemirror/view";
import type { ValidationProblem } from "../../api/workspace/problems";
import { allowedValues, docAt, type KeyDoc, keysAt, type Schema, schemasAt } from "./json-schema";
import { cursorContext, keyAt, siblingKeys } from "./yaml-path";

function formatDefault(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The documentation of one key as DOM built from text nodes (descriptions come from the server). */
export function keyDocElement(doc: KeyDoc): HTMLElement {
  const root = document.createElement("div");
  root.className = "parley-key-doc";
  const title = document.createElement("div");
  title.className = "parley-key-doc-title";
  const name = document.createElement("strong");
  name.textContent = doc.key;
  title.append(name);
  const facts = [doc.type, doc.required ? "required" : "", doc.deprecated ? "deprecated" : ""].filter(Boolean);
  if (facts.length > 0) title.append(document.createTextNode(` — ${facts.join(", ")}`));
  root.append(title);
  const lines = [
    doc.description,
    doc.values.length > 0 ? `Values: ${doc.values.join(", ")}` : "",
    doc.defaultValue !== undefined && doc.defaultValue !== null ? `Default: ${formatDefault(doc.defaultValue)}` : "",
  ];
  for (const text of lines.filter(Boolean)) {
    const paragraph = document.createElement("div");
    paragraph.textContent = text;
    root.append(paragraph);
  }
  return root;
}

function keyOption(doc: KeyDoc): Completion {
  const detail = [doc.type, doc.required ? "required" : "", doc.deprecated ? "deprecated" : ""].filter(Boolean);
  return {
    label: doc.key,
    type: "property",
    detail: detail.join(" · "),
    info: () => keyDocElement(doc),
    apply: `${/^[\w-]+$/.test(doc.key) ? doc.key : JSON.stringify(doc.key)}: `,
    boost: doc.deprecated ? -20 : doc.required ? 10 : 0,
  };
}

/** Completion of keys (and of enum/boolean values) from the schema, at the cursor's YAML path. */
export function schemaCompletionSource(getSchema: () => Schema | null): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const schema = getSchema();
    if (schema === null) return null;
    const text = context.state.doc.toString();
    const where = cursorContext(text, context.pos);
    if (where === null) return null;
    if (!context.explicit && where.prefix === "" && where.kind === "key") return null;

    let options: Completion[];
    if (where.kind === "key") {
      const line = context.state.doc.lineAt(context.pos);
      const present = siblingKeys(text, line.number - 1, where.from - line.from, where.inItem);
      options = keysAt(schema, where.path)
        .filter((doc) => !present.has(doc.key) || doc.key === where.prefix)
        .map(keyOption);
      if (where.inItem) {
        for (const value of allowedValues(schemasAt(schema, where.path))) {
          options.push({ label: value, type: "enum" });
        }
      }
    } else {
      options = allowedValues(schemasAt(schema, where.path)).map((value) => ({ label: value, type: "enum" }));
    }
    if (options.length === 0) return null;
    return { from: where.from, options, validFor: /^[\w\- ]*$/ };
  };
}

/** Hover docs for keys the schema knows. */
export function schemaHover(getSchema: () => Schema | null) {
  return hoverTooltip((view, pos) => {
    const schema = getSchema();
    if (schema === null) return null;
    const found = keyAt(view.state.doc.toString(), pos);
    if (found === null) return null;
    const doc = docAt(schema, found.path);
    if (doc === null) return null;
    return { pos: found.from, end: found.to, above: true, create: () => ({ dom: keyDocElement(doc) }) };
  });
}

/** The server's problems as editor diagnostics (1-based line/column; unknown positions mark the first line). */
export function problemsToDiagnostics(doc: Text, problems: readonly ValidationProblem[]): Diagnostic[] {
  return problems.map((problem) => {
    const lineNumber = Math.min(Math.max(problem.line ?? 1, 1), doc.lines);
    const line = doc.line(lineNumber);
    const from = Math.min(line.from + Math.max((problem.column ?? 1) - 1, 0), line.to);
    const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
    return {
      from,
      to,
      severity: problem.severity,
      message: problem.hint ? `${problem.message} — ${problem.hint}` : problem.message,
    };
  });
}
