/**
 * The models a key can use: its provider's curated list at once, then the live list from a short run.
 * One run per key per visit of the form; "refresh" starts another.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { type LLMKey, useListKeyModels } from "../../api/workspace/keys";
import { useProviders } from "../../api/workspace/providers";
import { modelListOf } from "../../api/runs/run-results";
import { useFollowedRun } from "../../components/use-followed-run";

export function useKeyModels(key: LLMKey | null) {
  const providers = useProviders();
  const listModels = useListKeyModels();
  const [runs, setRuns] = useState<Record<number, number>>({});
  const requested = useRef(new Set<number>());
  const keyId = key?.id ?? null;

  const start = useCallback(
    (id: number) => {
      requested.current.add(id);
      listModels.mutate(id, {
        onSuccess: (run) => {
          setRuns((current) => ({ ...current, [id]: run.id }));
        },
      });
    },
    // `mutate` is stable; the mutation object is not.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [listModels.mutate],
  );

  useEffect(() => {
    if (keyId !== null && !requested.current.has(keyId)) start(keyId);
  }, [keyId, start]);

  const { run, active } = useFollowedRun(keyId === null ? null : (runs[keyId] ?? null));
  const live = run && !active ? modelListOf(run) : null;
  const fallback = providers.data?.find((p) => p.id === key?.provider)?.fallback_models ?? [];
  const models = live && live.models.length > 0 ? live.models : fallback;

  return {
    models,
    loading: keyId !== null && (listModels.isPending || active),
    source: live?.source ?? (fallback.length > 0 ? ("fallback" as const) : null),
    message: live && !live.ok ? live.message : "",
    startError: listModels.error,
    refresh: () => {
      if (keyId !== null) start(keyId);
    },
  };
}
