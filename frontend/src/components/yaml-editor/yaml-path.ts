/**
 * Where in a YAML document a position is, from indentation alone.
 *
 * The editor's completion and hover docs need the path of mapping keys (and `*` for sequence items) around
 * the cursor while the user is typing, when the document is often not valid YAML yet. A parser gives up on
 * such text; indentation does not. Block style only: flow collections and multi-line scalars are read as
 * plain lines, which at worst yields no suggestion.
 */

/** A mapping key, or `ITEM` for "some item of a sequence". */
export type PathSegment = string;
export const ITEM = "*";

interface Opener {
  column: number;
  /** A key opener carries its key; a sequence dash does not. */
  key: string | null;
}

const KEY_PATTERN = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:,[\]{}][^#:]*?|-[^\s#:][^#:]*?)\s*:(?=\s|$)/;

function unquote(key: string): string {
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) return key.slice(1, -1).replace(/\\(.)/g, "$1");
  if (key.length >= 2 && key.startsWith("'") && key.endsWith("'")) return key.slice(1, -1).replace(/''/g, "'");
  return key.trim();
}

/** The dashes and the key that start a line, left to right, with their columns. */
export function lineOpeners(line: string): Opener[] {
  const openers: Opener[] = [];
  let column = 0;
  for (;;) {
    while (line[column] === " ") column += 1;
    const rest = line.slice(column);
    if (rest.startsWith("-") && (rest.length === 1 || rest[1] === " ")) {
      openers.push({ column, key: null });
      column += 1;
      continue;
    }
    const match = KEY_PATTERN.exec(rest);
    if (match?.[1] !== undefined) openers.push({ column, key: unquote(match[1]) });
    return openers;
  }
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trimStart();
  return trimmed === "" || trimmed.startsWith("#");
}

function indentation(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The path of the node that contains something starting at `column` on line `lineIndex`, looking only at the
 * lines above. `startsWithDash` says whether that something is a sequence item (which may sit at the same
 * column as its parent key: `goals:\n- a`).
 */
export function ancestorsOf(lines: readonly string[], lineIndex: number, column: number, startsWithDash: boolean) {
  const path: PathSegment[] = [];
  let target = column;
  let dash = startsWithDash;
  for (let index = lineIndex - 1; index >= 0 && (target > 0 || dash); index -= 1) {
    const line = lines[index] ?? "";
    if (isBlankOrComment(line)) continue;
    const openers = lineOpeners(line);
    for (let o = openers.length - 1; o >= 0; o -= 1) {
      const opener = openers[o];
      if (opener === undefined) continue;
      const isParent = opener.column < target || (dash && opener.key !== null && opener.column === target);
      if (!isParent) continue;
      if (opener.key === null) {
        path.unshift(ITEM);
        dash = true;
      } else {
        path.unshift(opener.key);
        dash = false;
      }
      target = opener.column;
    }
    // A line that starts left of the target without being a parent (a scalar) ends the search.
    if (openers.length === 0 && indentation(line) < target) break;
  }
  return path;
}

export type CursorContext =
  /** Typing a key (or a scalar sequence item) in the mapping at `path`; `prefix` is what is typed so far. */
  | { kind: "key"; path: PathSegment[]; prefix: string; from: number; inItem: boolean }
  /** Typing the value of the key at the end of `path`. */
  | { kind: "value"; path: PathSegment[]; prefix: string; from: number };

/**
 * What the cursor at `offset` is typing. `from` is the document offset where the typed word starts, so a
 * completion replaces it.
 */
export function cursorContext(text: string, offset: number): CursorContext | null {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  if (before.trimStart().startsWith("#")) return null;
  const lines = text.slice(0, lineStart).split("\n");
  lines.pop(); // the empty string after the last newline
  const lineIndex = lines.length;
  const all = [...lines, before];

  const openers = lineOpeners(before);
  const keyOpener = openers.find((opener) => opener.key !== null);
  const dashes = openers.filter((opener) => opener.key === null);
  const first = openers[0];
  const outer =
    first === undefined
      ? ancestorsOf(all, lineIndex, indentation(before), false)
      : ancestorsOf(all, lineIndex, first.column, first.key === null);
  const itemPath = [...outer, ...dashes.map(() => ITEM)];

  if (keyOpener?.key != null) {
    const colon = before.indexOf(":", keyOpener.column);
    const valueText = before.slice(colon + 1);
    const prefix = valueText.trimStart();
    if (/["'[{]/.test(prefix.slice(0, 1))) return null;
    return { kind: "value", path: [...itemPath, keyOpener.key], prefix, from: offset - prefix.length };
  }
  const lastDash = dashes.at(-1);
  const wordStart = lastDash === undefined ? indentation(before) : lastDash.column + 2;
  const prefix = before.slice(wordStart);
  if (/[:#"'[{]/.test(prefix)) return null;
  return { kind: "key", path: itemPath, prefix, from: lineStart + wordStart, inItem: lastDash !== undefined };
}

/** The key under `offset` (for hover docs), with its full path, or null when the position is not on a key. */
export function keyAt(text: string, offset: number): { path: PathSegment[]; from: number; to: number } | null {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEndRaw = text.indexOf("\n", offset);
  const line = text.slice(lineStart, lineEndRaw === -1 ? text.length : lineEndRaw);
  const openers = lineOpeners(line);
  const keyOpener = openers.find((opener) => opener.key !== null);
  if (keyOpener?.key == null) return null;
  const keyEnd = line.indexOf(":", keyOpener.column);
  const column = offset - lineStart;
  if (column < keyOpener.column || column > keyEnd) return null;
  const lines = text.slice(0, lineStart).split("\n");
  lines.pop();
  const first = openers[0];
  if (first === undefined) return null;
  const outer = ancestorsOf(lines.concat(line), lines.length, first.column, first.key === null);
  const dashes = openers.filter((opener) => opener.key === null).map(() => ITEM);
  return { path: [...outer, ...dashes, keyOpener.key], from: lineStart + keyOpener.column, to: lineStart + keyEnd };
}

/**
 * Keys already present in the mapping whose keys start at `column`, around line `lineIndex` (to leave them out
 * of suggestions). `startsItem`: the current line opens a sequence item, so the mapping begins there.
 */
export function siblingKeys(text: string, lineIndex: number, column: number, startsItem: boolean): Set<string> {
  const lines = text.split("\n");
  const keys = new Set<string>();
  const addKey = (line: string) => {
    const key = lineOpeners(line).find((opener) => opener.key !== null && opener.column === column);
    if (key?.key != null) keys.add(key.key);
  };
  if (!startsItem) {
    for (let i = lineIndex - 1; i >= 0; i -= 1) {
      const line = lines[i] ?? "";
      if (isBlankOrComment(line)) continue;
      if (indentation(line) < column) {
        // The line that opens this item (`- first_key: ...`) still belongs to the mapping.
        if (lineOpeners(line).some((opener) => opener.key === null)) addKey(line);
        break;
      }
      addKey(line);
    }
  }
  for (let i = lineIndex + 1; i < lines.length; i += 1) {
    const line = lines[i] ?? "";
    if (isBlankOrComment(line)) continue;
    if (indentation(line) < column) break;
    addKey(line);
  }
  return keys;
}
