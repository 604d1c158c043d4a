/** JSON Schemas of Parley's YAML languages, for the editor's completion and hover docs. */
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../client";
import { serverKeys } from "../query-keys";

export type SchemaKind = "profile" | "rule" | "connector" | "campaign";

/** A JSON Schema document; the editor reads it defensively, so it stays a plain record here. */
export type JsonSchemaDocument = Record<string, unknown>;

export function getJsonSchema(kind: SchemaKind, signal?: AbortSignal): Promise<JsonSchemaDocument> {
  return unwrap(api.GET("/api/schemas/{kind}/", { params: { path: { kind } }, signal }));
}

export function jsonSchemaQueryOptions(kind: SchemaKind) {
  return queryOptions({
    queryKey: serverKeys.schema(kind),
    queryFn: ({ signal }) => getJsonSchema(kind, signal),
    staleTime: Infinity,
  });
}

export function useJsonSchema(kind: SchemaKind) {
  return useQuery(jsonSchemaQueryOptions(kind));
}
