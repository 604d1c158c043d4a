/** Helpers that read request and response bodies out of the generated `paths` type. */
import type { paths } from "./schema";

type Method = "get" | "put" | "post" | "patch" | "delete";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type RequestJson<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

/** The JSON body of one response status of an operation. */
export type ResponseJson<
  P extends keyof paths,
  M extends Method,
  S extends keyof Operation<P, M>["responses"],
> = Operation<P, M>["responses"][S] extends { content: { "application/json": infer B } } ? B : never;
