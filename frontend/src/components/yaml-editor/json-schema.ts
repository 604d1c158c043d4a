/**
 * Just enough JSON Schema reading for completion and hover docs: follow a YAML path through `properties`,
 * `patternProperties`, `additionalProperties`, `items`, local `$ref`s and the `anyOf`/`oneOf`/`allOf` variants,
 * then list the keys and values that fit there. Schemas are read defensively (they arrive as JSON).
 */
import { ITEM, type PathSegment } from "./yaml-path";

export type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function schemaList(value: unknown): Schema[] {
  return Array.isArray(value) ? value.filter(isSchema) : [];
}

function resolveRef(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith("#/")) return null;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    node = isSchema(node) ? node[key] : undefined;
  }
  return isSchema(node) ? node : null;
}

/**
 * A schema with the document its local `$ref`s resolve against: the nearest enclosing schema that has
 * `$defs` (a combined schema may embed whole documents, each with its own definitions, in `oneOf`).
 */
interface Located {
  schema: Schema;
  root: Schema;
}

function locate(schema: Schema, root: Schema): Located {
  return { schema, root: isSchema(schema.$defs) || isSchema(schema.definitions) ? schema : root };
}

/** The schema and its variants, flattened (each variant also keeps its own description). */
function expandLocated(located: Located, depth = 0): Located[] {
  if (depth > 8) return [];
  const { schema, root } = located;
  const out: Located[] = [located];
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    if (target) out.push(...expandLocated(locate(target, root), depth + 1));
  }
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    for (const variant of schemaList(schema[keyword])) out.push(...expandLocated(locate(variant, root), depth + 1));
  }
  return out;
}

function childSchemas({ schema, root }: Located, segment: PathSegment): Located[] {
  if (segment === ITEM) {
    const items = schema.items;
    if (isSchema(items)) return [locate(items, root)];
    return schemaList(schema.prefixItems).map((item) => locate(item, root));
  }
  const properties = schema.properties;
  if (isSchema(properties) && isSchema(properties[segment])) return [locate(properties[segment], root)];
  const found: Located[] = [];
  if (isSchema(schema.patternProperties)) {
    for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
      try {
        if (isSchema(sub) && new RegExp(pattern, "u").test(segment)) found.push(locate(sub, root));
      } catch {
        // An unsupported pattern matches nothing.
      }
    }
  }
  if (found.length === 0 && isSchema(schema.additionalProperties))
    found.push(locate(schema.additionalProperties, root));
  return found;
}

function locatedAt(root: Schema, path: readonly PathSegment[]): Located[] {
  let current = expandLocated(locate(root, root));
  for (const segment of path) {
    current = current.flatMap((located) => childSchemas(located, segment)).flatMap((l) => expandLocated(l));
    if (current.length === 0) return [];
  }
  return current;
}

/** Every schema that may describe the node at `path` (empty when the path leaves the schema). */
export function schemasAt(root: Schema, path: readonly PathSegment[]): Schema[] {
  return locatedAt(root, path).map((located) => located.schema);
}

export interface KeyDoc {
  key: string;
  type: string;
  description: string;
  deprecated: boolean;
  required: boolean;
  defaultValue: unknown;
  values: string[];
}

function typeName(schemas: Schema[]): string {
  const types = new Set<string>();
  for (const schema of schemas) {
    if (typeof schema.type === "string") types.add(schema.type);
    else if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === "string") types.add(t);
    if (Array.isArray(schema.enum) && !schema.type) types.add("enum");
  }
  return [...types].join(" | ");
}

function firstString(schemas: Schema[], keyword: string): string {
  for (const schema of schemas) if (typeof schema[keyword] === "string") return schema[keyword];
  return "";
}

/** Scalar values the schema allows (enum members, consts, booleans). */
export function allowedValues(schemas: Schema[]): string[] {
  const values = new Set<string>();
  for (const schema of schemas) {
    const listed: unknown = schema.enum;
    const candidates: unknown[] = [...(Array.isArray(listed) ? (listed as unknown[]) : []), schema.const];
    for (const v of candidates) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") values.add(String(v));
    }
    if (schema.type === "boolean") {
      values.add("true");
      values.add("false");
    }
  }
  return [...values];
}

/** What the schema says about one node: type, description, default, allowed values. */
export function describe(key: string, schemas: Schema[], required = false): KeyDoc {
  const defaultSchema = schemas.find((schema) => "default" in schema);
  return {
    key,
    type: typeName(schemas),
    description: firstString(schemas, "description") || firstString(schemas, "title"),
    deprecated: schemas.some((schema) => schema.deprecated === true),
    required,
    defaultValue: defaultSchema?.default,
    values: allowedValues(schemas),
  };
}

/** The keys a mapping at `path` may have, each described. */
export function keysAt(root: Schema, path: readonly PathSegment[]): KeyDoc[] {
  const docs = new Map<string, { schemas: Schema[]; required: boolean }>();
  for (const located of locatedAt(root, path)) {
    const { schema } = located;
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    if (!isSchema(schema.properties)) continue;
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!isSchema(sub)) continue;
      const entry = docs.get(key) ?? { schemas: [], required: false };
      entry.schemas.push(...expandLocated(locate(sub, located.root)).map((l) => l.schema));
      entry.required ||= required.has(key);
      docs.set(key, entry);
    }
  }
  return [...docs.entries()].map(([key, { schemas, required }]) => describe(key, schemas, required));
}

/** The documentation of the key at the end of `path`, or null when the schema does not know it. */
export function docAt(root: Schema, path: readonly PathSegment[]): KeyDoc | null {
  const key = path.at(-1);
  if (key === undefined || key === ITEM) return null;
  const schemas = schemasAt(root, path);
  if (schemas.length === 0) return null;
  const parentRequired = schemasAt(root, path.slice(0, -1)).some(
    (schema) => Array.isArray(schema.required) && schema.required.includes(key),
  );
  return describe(key, schemas, parentRequired);
}
