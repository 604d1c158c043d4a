/**
 * LLM API keys. The secret is write-only: the API answers with a masked `hint`. Testing a key and listing its
 * models are short runs (202 + Run); the outcome arrives in the run's `result` (see `run-results.ts`).
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, unwrapEmpty } from "../client";
import { collectPages } from "../pagination";
import { keyKeys, runKeys } from "../query-keys";
import type { RequestJson, ResponseJson } from "../types";

export type LLMKey = ResponseJson<"/api/keys/{id}/", "get", 200>;
export type LLMKeyInput = RequestJson<"/api/keys/", "post">;
export type KeyRun = ResponseJson<"/api/keys/{id}/test/", "post", 202>;

export function getKeys(page = 1, signal?: AbortSignal) {
  return unwrap(api.GET("/api/keys/", { params: { query: { page } }, signal }));
}

export function getAllKeys(signal?: AbortSignal) {
  return collectPages((page) => getKeys(page, signal));
}

export function createKey(body: LLMKeyInput) {
  return unwrap(api.POST("/api/keys/", { body }));
}

export function renameKey({ id, name }: { id: number; name: string }) {
  return unwrap(api.PATCH("/api/keys/{id}/", { params: { path: { id } }, body: { name } }));
}

export function deleteKey(id: number) {
  return unwrapEmpty(api.DELETE("/api/keys/{id}/", { params: { path: { id } } }));
}

export function testKey(id: number) {
  return unwrap(api.POST("/api/keys/{id}/test/", { params: { path: { id } } }));
}

export function listKeyModels(id: number) {
  return unwrap(api.POST("/api/keys/{id}/models/", { params: { path: { id } } }));
}

export function keysPageQueryOptions(page: number) {
  return queryOptions({ queryKey: keyKeys.page(page), queryFn: ({ signal }) => getKeys(page, signal) });
}

export function allKeysQueryOptions() {
  return queryOptions({ queryKey: keyKeys.everything, queryFn: ({ signal }) => getAllKeys(signal) });
}

export function useKeysPage(page: number) {
  return useQuery(keysPageQueryOptions(page));
}

export function useAllKeys() {
  return useQuery(allKeysQueryOptions());
}

function useInvalidateKeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keyKeys.all });
}

export function useCreateKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({ mutationFn: createKey, onSuccess: invalidate });
}

export function useRenameKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({ mutationFn: renameKey, onSuccess: invalidate });
}

export function useDeleteKey() {
  const invalidate = useInvalidateKeys();
  return useMutation({ mutationFn: deleteKey, onSuccess: invalidate });
}

/** Starts a run; the caller follows it with `useRun` (polled while it can still change). */
function useStartKeyRun(start: (id: number) => Promise<KeyRun>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: start,
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
    },
  });
}

export function useTestKey() {
  return useStartKeyRun(testKey);
}

export function useListKeyModels() {
  return useStartKeyRun(listKeyModels);
}
