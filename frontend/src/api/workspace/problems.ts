import type { components } from "../schema";

/** A problem the server found in a YAML document, with its 1-based position when it has one. */
export type ValidationProblem = components["schemas"]["Problem"];
