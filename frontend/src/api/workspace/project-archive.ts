/**
 * A project's files as one zip: the export (profiles, rules, security campaigns and personalities, readable by whoever can read
 * the project) and the import of such a zip, a TRACER output folder or SENSEI project folders (the owner only).
 * An invalid campaign refuses the whole archive; the server names the file and line.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { isBlob, saveBlob } from "../../lib/save-blob";
import { api, settle } from "../client";
import { toApiError } from "../errors";
import { projectKeys } from "../query-keys";
import { isRecord } from "../../lib/json";

export interface ImportOutcome {
  profiles: number;
  rules: number;
  campaigns: number;
  personalities: number;
  /** Files that were neither a profile, a rule nor a campaign, with why. */
  skipped: { file: string; why: string }[];
}

const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);
const text = (value: unknown) => (typeof value === "string" ? value : "");

export function readImportOutcome(data: unknown): ImportOutcome {
  const body = isRecord(data) ? data : {};
  const skipped = Array.isArray(body.skipped) ? body.skipped : [];
  return {
    profiles: count(body.profiles),
    rules: count(body.rules),
    campaigns: count(body.campaigns),
    personalities: count(body.personalities),
    skipped: skipped.filter(isRecord).map((row) => ({ file: text(row.file), why: text(row.why) })),
  };
}

export async function downloadProjectArchive(projectId: number): Promise<void> {
  const { data, error, response } = await settle(
    api.GET("/api/projects/{project_id}/export/", {
      params: { path: { project_id: projectId } },
      parseAs: "blob",
    }),
  );
  if (!response.ok || !isBlob(data)) throw toApiError(response, error);
  saveBlob(data, `parley-project-${String(projectId)}.zip`);
}

export async function importProjectArchive({ projectId, file }: { projectId: number; file: File }) {
  const form = new FormData();
  form.append("file", file, file.name);
  const { data, error, response } = await settle(
    api.POST("/api/projects/{project_id}/import/", {
      params: { path: { project_id: projectId } },
      body: { file: "" },
      bodySerializer: () => form,
    }),
  );
  if (!response.ok) throw toApiError(response, error);
  return readImportOutcome(data);
}

export function useDownloadProjectArchive() {
  return useMutation({ mutationFn: downloadProjectArchive });
}

export function useImportProjectArchive() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importProjectArchive,
    // Profiles, rules and campaigns all live under the project's key.
    onSettled: (_data, _error, { projectId }) =>
      queryClient.invalidateQueries({ queryKey: projectKeys.one(projectId) }),
  });
}
