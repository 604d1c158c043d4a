/**
 * A project's files as one zip: the export (profiles, rules, security campaigns and personalities, readable by whoever can read
 * the project) and the import of such a zip, a TRACER output folder or SENSEI project folders (the owner only).
 * An invalid campaign refuses the whole archive; the server names the file and line.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { isBlob, saveBlob } from "../../lib/save-blob";
import { api, settle, unwrap } from "../client";
import { toApiError } from "../errors";
import { projectKeys } from "../query-keys";
import type { ResponseJson } from "../types";

/** What an import stored (each file, valid or not) and what it skipped, with why. */
export type ImportOutcome = ResponseJson<"/api/projects/{project_id}/import/", "post", 201>;

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

export function importProjectArchive({ projectId, file }: { projectId: number; file: File }) {
  const form = new FormData();
  form.append("file", file, file.name);
  return unwrap(
    api.POST("/api/projects/{project_id}/import/", {
      params: { path: { project_id: projectId } },
      body: { file: "" },
      bodySerializer: () => form,
    }),
  );
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
