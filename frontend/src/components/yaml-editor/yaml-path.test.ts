import { describe, expect, it } from "vitest";
import { docAt, keysAt } from "./json-schema";
import { cursorContext, keyAt, siblingKeys } from "./yaml-path";

/** The text with `|` marking the cursor, and the cursor's offset. */
function at(marked: string): [string, number] {
  const offset = marked.indexOf("|");
  return [marked.slice(0, offset) + marked.slice(offset + 1), offset];
}

const SCHEMA = {
  type: "object",
  properties: {
    test_name: { type: "string", description: "Unique name." },
    llm: {
      type: "object",
      properties: {
        temperature: { type: "number", default: 0.8 },
        format: { type: "object", properties: { type: { enum: ["text", "speech"] } } },
      },
    },
    user: {
      type: "object",
      properties: {
        role: { type: "string" },
        goals: {
          type: "array",
          items: {
            anyOf: [{ type: "string" }, { type: "object", additionalProperties: { $ref: "#/$defs/Variable" } }],
          },
        },
      },
    },
  },
  required: ["test_name"],
  $defs: {
    Variable: {
      type: "object",
      properties: { function: { type: "string", description: "How values are picked." }, data: { type: "array" } },
    },
  },
};

describe("cursor context from indentation", () => {
  it("finds the mapping a key is typed into", () => {
    const [text, offset] = at("test_name: x\nllm:\n  temp|");
    expect(cursorContext(text, offset)).toMatchObject({ kind: "key", path: ["llm"], prefix: "temp" });
  });

  it("follows sequences, including items at their key's indentation, and nested variables", () => {
    const [text, offset] = at("user:\n  goals:\n  - order a pizza\n  - size:\n      fun|");
    expect(cursorContext(text, offset)).toMatchObject({ kind: "key", path: ["user", "goals", "*", "size"] });
  });

  it("knows when a value is typed", () => {
    const [text, offset] = at("llm:\n  format:\n    type: sp|");
    expect(cursorContext(text, offset)).toMatchObject({ kind: "value", path: ["llm", "format", "type"], prefix: "sp" });
  });

  it("finds the key under the pointer for hover docs", () => {
    const text = "user:\n  goals:\n    - size:\n        function: forward()\n";
    const offset = text.indexOf("function") + 3;
    expect(keyAt(text, offset)?.path).toEqual(["user", "goals", "*", "size", "function"]);
  });

  it("lists the keys already present around the cursor", () => {
    const [text, offset] = at("llm:\n  temperature: 1\n  |\n  format: {}\ntest_name: x\n");
    const context = cursorContext(text, offset);
    expect(context?.kind).toBe("key");
    expect([...siblingKeys(text, 2, 2, false)].sort()).toEqual(["format", "temperature"]);
  });
});

describe("schema lookups", () => {
  it("lists keys with types, defaults and required flags", () => {
    const root = keysAt(SCHEMA, []);
    expect(root.map((k) => k.key)).toEqual(["test_name", "llm", "user"]);
    expect(root[0]).toMatchObject({ required: true, description: "Unique name." });
    expect(keysAt(SCHEMA, ["llm"]).find((k) => k.key === "temperature")).toMatchObject({
      type: "number",
      defaultValue: 0.8,
    });
  });

  it("resolves variables through anyOf, additionalProperties and $ref", () => {
    expect(keysAt(SCHEMA, ["user", "goals", "*", "size"]).map((k) => k.key)).toEqual(["function", "data"]);
    expect(docAt(SCHEMA, ["user", "goals", "*", "size", "function"])?.description).toBe("How values are picked.");
    expect(docAt(SCHEMA, ["llm", "format", "type"])?.values).toEqual(["text", "speech"]);
    expect(docAt(SCHEMA, ["nope"])).toBeNull();
  });
});
