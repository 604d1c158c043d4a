/**
 * A project's production conversations (`backend/runs/transcripts.py`): the chunked upload, the overview the
 * Transcripts page shows (masking rules, a masked sample, the real users' measures), calibration and the fidelity
 * report.
 *
 * The upload cuts the file after a line break, about `CHUNK_TARGET` bytes at a time, and sends each chunk as raw
 * bytes; the server masks it before storing anything and answers where the next chunk starts (it may ask for the
 * last rows again, when they belong to a conversation that goes on in the next chunk).
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, settle, unwrap } from "../client";
import { toApiError } from "../errors";
import type { components } from "../schema";

export type TranscriptsOverview = components["schemas"]["TranscriptsOverview"];
export type TranscriptUpload = components["schemas"]["UploadDocument"];
export type FidelityReport = components["schemas"]["FidelityReport"];
export type FidelityMeasure = components["schemas"]["FidelityMeasure"];

export const CHUNK_TARGET = 1024 * 1024;

export const transcriptKeys = {
  all: (projectId: number) => ["projects", projectId, "transcripts"] as const,
  overview: (projectId: number) => ["projects", projectId, "transcripts", "overview"] as const,
  fidelity: (projectId: number) => ["projects", projectId, "transcripts", "fidelity"] as const,
};

const projectPath = (projectId: number) => ({ project_id: projectId });

export function useTranscripts(projectId: number) {
  return useQuery({
    queryKey: transcriptKeys.overview(projectId),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/projects/{project_id}/transcripts/", { params: { path: projectPath(projectId) }, signal })),
  });
}

export function useFidelity(projectId: number, refetchInterval: number | false) {
  return useQuery({
    queryKey: transcriptKeys.fidelity(projectId),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET("/api/projects/{project_id}/transcripts/fidelity/", {
          params: { path: projectPath(projectId) },
          signal,
        }),
      ),
    refetchInterval,
  });
}

/** Where the chunk that starts at `offset` ends: after the last line break within the target size. */
export function chunkEnd(bytes: Uint8Array, offset: number, target = CHUNK_TARGET): number {
  const limit = Math.min(bytes.length, offset + target);
  if (limit >= bytes.length) return bytes.length;
  const cut = bytes.lastIndexOf(10, limit - 1);
  if (cut >= offset) return cut + 1;
  const next = bytes.indexOf(10, limit);
  return next === -1 ? bytes.length : next + 1;
}

export interface UploadProgress {
  sent: number;
  size: number;
  upload: TranscriptUpload;
}

/** Sends `file` chunk by chunk; `onProgress` after each acknowledged chunk. Resolves with the finished upload. */
export async function uploadTranscript(
  projectId: number,
  file: File,
  onProgress: (progress: UploadProgress) => void,
): Promise<TranscriptUpload> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let upload = await unwrap(
    api.POST("/api/projects/{project_id}/transcripts/uploads/", {
      params: { path: projectPath(projectId) },
      body: { name: file.name, size: bytes.length },
    }),
  );
  let offset = 0;
  for (;;) {
    const end = chunkEnd(bytes, offset);
    const final = end >= bytes.length;
    const { data, error, response } = await settle(
      api.POST("/api/projects/{project_id}/transcripts/uploads/{upload_id}/chunks/", {
        params: { path: { ...projectPath(projectId), upload_id: upload.id }, query: { offset, final } },
        body: bytes.slice(offset, end) as unknown as string,
        bodySerializer: (body: unknown) => body as BodyInit,
        headers: { "Content-Type": "application/octet-stream" },
      }),
    );
    if (!response.ok || data === undefined) throw toApiError(response, error);
    upload = data;
    onProgress({ sent: final ? bytes.length : upload.offset, size: bytes.length, upload });
    if (final) return upload;
    offset = upload.offset;
  }
}

export function useUploadTranscript(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ file, onProgress }: { file: File; onProgress: (progress: UploadProgress) => void }) =>
      uploadTranscript(projectId, file, onProgress),
    onSettled: () => queryClient.invalidateQueries({ queryKey: transcriptKeys.all(projectId) }),
  });
}

export function useCalibrate(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/projects/{project_id}/transcripts/calibrate/", { params: { path: projectPath(projectId) } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: transcriptKeys.all(projectId) }),
  });
}
