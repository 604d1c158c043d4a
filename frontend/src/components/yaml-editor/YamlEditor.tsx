/**
 * The YAML editor: CodeMirror 6 with YAML highlighting, completion and hover docs from a JSON Schema, and the
 * server's validation problems as inline diagnostics. Controlled: `value` in, `onChange` out.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import {
  bracketMatching,
  defaultHighlightStyle,
  foldGutter,
  foldKeymap,
  HighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { Box, useComputedColorScheme } from "@mantine/core";
import { tags } from "@lezer/highlight";
import { useEffect, useLayoutEffect, useRef } from "react";
import type { ValidationProblem } from "../../api/workspace/problems";
import type { Schema } from "./json-schema";
import { problemsToDiagnostics, schemaCompletionSource, schemaHover } from "./schema-support";

export interface YamlEditorProps {
  value: string;
  onChange?: (value: string) => void;
  /** JSON Schema for completion and hover docs; null while it loads (or for none). */
  schema?: Schema | null;
  /** The server's problems with `value`, shown inline. */
  problems?: readonly ValidationProblem[];
  /** Accessible name of the editing area. */
  label: string;
  /** Id of an element that describes the editor (for example its problem list). */
  describedBy?: string;
  readOnly?: boolean;
  /** Ctrl/Cmd+S. */
  onSave?: () => void;
  minHeight?: number;
  /** Receives a function that moves the cursor to a 1-based line and column and focuses the editor. */
  onReady?: (goTo: (line: number, column: number) => void) => void;
}

const NO_PROBLEMS: readonly ValidationProblem[] = [];

const darkHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "#9cdcfe" },
  { tag: [tags.definition(tags.propertyName)], color: "#9cdcfe" },
  { tag: [tags.string, tags.special(tags.string)], color: "#ce9178" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "#b5cea8" },
  { tag: tags.comment, color: "#7f9f7f", fontStyle: "italic" },
  { tag: [tags.keyword, tags.operator, tags.punctuation, tags.separator], color: "#c586c0" },
  { tag: [tags.meta, tags.labelName], color: "#dcdcaa" },
]);

function themeFor(scheme: "light" | "dark", minHeight: number) {
  const dark = scheme === "dark";
  return [
    EditorView.theme(
      {
        "&": {
          fontSize: "13px",
          border: `1px solid ${dark ? "#424242" : "#ced4da"}`,
          borderRadius: "8px",
          backgroundColor: dark ? "#1f1f1f" : "#ffffff",
          color: dark ? "#e0e0e0" : "#212529",
        },
        "&.cm-focused": { outline: "2px solid var(--mantine-primary-color-filled)", outlineOffset: "1px" },
        ".cm-scroller": { minHeight: `${String(minHeight)}px`, fontFamily: "var(--mantine-font-family-monospace)" },
        ".cm-content": { caretColor: dark ? "#ffffff" : "#000000" },
        ".cm-gutters": {
          backgroundColor: dark ? "#262626" : "#f8f9fa",
          color: dark ? "#8c8c8c" : "#495057", // line numbers readable (AA) on the gutter
          borderRight: `1px solid ${dark ? "#424242" : "#dee2e6"}`,
          borderRadius: "8px 0 0 8px",
        },
        ".cm-activeLine": { backgroundColor: dark ? "#2a2d3a66" : "#edf2ff66" },
        ".cm-activeLineGutter": { backgroundColor: dark ? "#2a2d3a" : "#edf2ff" },
        ".cm-tooltip": { maxWidth: "420px" },
        ".parley-key-doc": { padding: "6px 8px", display: "grid", gap: "4px", fontSize: "12px" },
      },
      { dark },
    ),
    syntaxHighlighting(dark ? darkHighlight : defaultHighlightStyle, { fallback: true }),
  ];
}

export function YamlEditor({
  value,
  onChange,
  schema = null,
  problems = NO_PROBLEMS,
  label,
  describedBy,
  readOnly = false,
  onSave,
  minHeight = 320,
  onReady,
}: YamlEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const scheme = useComputedColorScheme("light");
  // The extensions are built once; these refs let them see the latest props.
  const latest = useRef({ onChange, onSave, schema });
  useLayoutEffect(() => {
    latest.current = { onChange, onSave, schema };
  });
  const compartments = useRef({ theme: new Compartment(), readOnly: new Compartment(), aria: new Compartment() });
  const initial = useRef({ value, scheme, readOnly, minHeight, label, describedBy, onReady });

  useEffect(() => {
    if (host.current === null) return;
    const { theme, readOnly: readOnlyCompartment, aria } = compartments.current;
    const start = initial.current;
    const getSchema = () => latest.current.schema;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: start.value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          foldGutter(),
          lintGutter(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          closeBrackets(),
          highlightActiveLine(),
          highlightSelectionMatches(),
          EditorState.tabSize.of(2),
          yaml(),
          autocompletion({ override: [schemaCompletionSource(getSchema)], icons: false }),
          schemaHover(getSchema),
          keymap.of([
            {
              key: "Mod-s",
              preventDefault: true,
              run: () => {
                latest.current.onSave?.();
                return true;
              },
            },
            ...closeBracketsKeymap,
            ...defaultKeymap,
            ...searchKeymap,
            ...historyKeymap,
            ...foldKeymap,
            ...completionKeymap,
            ...lintKeymap,
            // Tab indents; Escape then Tab leaves the editor (CodeMirror's keyboard escape hatch).
            indentWithTab,
          ]),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange?.(update.state.doc.toString());
          }),
          theme.of(themeFor(start.scheme, start.minHeight)),
          readOnlyCompartment.of([EditorState.readOnly.of(start.readOnly), EditorView.editable.of(!start.readOnly)]),
          aria.of(
            EditorView.contentAttributes.of({
              "aria-label": start.label,
              ...(start.describedBy ? { "aria-describedby": start.describedBy } : {}),
            }),
          ),
        ],
      }),
    });
    view.current = editor;
    start.onReady?.((line, column) => {
      const doc = editor.state.doc;
      const target = doc.line(Math.min(Math.max(line, 1), doc.lines));
      const pos = Math.min(target.from + Math.max(column - 1, 0), target.to);
      editor.dispatch({ selection: { anchor: pos }, scrollIntoView: true });
      editor.focus();
    });
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  // Outside changes of the text (a template loaded, a document fetched) replace the editor's content.
  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    const current = editor.state.doc.toString();
    if (current !== value) editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.theme.reconfigure(themeFor(scheme, minHeight)) });
  }, [scheme, minHeight]);

  useEffect(() => {
    view.current?.dispatch({
      effects: compartments.current.readOnly.reconfigure([
        EditorState.readOnly.of(readOnly),
        EditorView.editable.of(!readOnly),
      ]),
    });
  }, [readOnly]);

  useEffect(() => {
    view.current?.dispatch({
      effects: compartments.current.aria.reconfigure(
        EditorView.contentAttributes.of({
          "aria-label": label,
          // In the tab order explicitly, so that the scrolling area around it counts as reachable by keyboard.
          tabindex: "0",
          ...(describedBy ? { "aria-describedby": describedBy } : {}),
        }),
      ),
    });
  }, [label, describedBy]);

  useEffect(() => {
    const editor = view.current;
    if (editor === null) return;
    editor.dispatch(setDiagnostics(editor.state, problemsToDiagnostics(editor.state.doc, problems)));
  }, [problems]);

  return <Box ref={host} data-testid="yaml-editor" />;
}
