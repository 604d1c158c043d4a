/**
 * What short runs (key test, model list, connection test) put in `result`, typed by the schema
 * (`backend/runs/worker/short_results.py`); null while the run has no result of that kind.
 */
import { resultOf, type Run } from "./runs";
import type { components } from "../schema";

export type KeyCheck = components["schemas"]["KeyCheck"];
export type ModelList = components["schemas"]["ModelList"];
export type ConnectionTest = components["schemas"]["ConnectionTest"];
export type BotReply = components["schemas"]["BotReply"];

export const keyCheckOf = (run: Pick<Run, "result">): KeyCheck | null => resultOf(run, "key_test");
export const modelListOf = (run: Pick<Run, "result">): ModelList | null => resultOf(run, "key_models");
export const connectionTestOf = (run: Pick<Run, "result">): ConnectionTest | null => resultOf(run, "connector_test");
