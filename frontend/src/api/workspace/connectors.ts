/**
 * Connectors: how Parley talks to a chatbot. Secret parameters are write-only (responses list them in
 * `secrets_set`); on update an omitted or empty secret keeps its stored value.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap, unwrapEmpty } from "../client";
import { collectPages } from "../pagination";
import { connectionTestOf } from "../runs/run-results";
import { connectorKeys, runKeys } from "../query-keys";
import type { Run } from "../runs/runs";
import type { RequestJson, ResponseJson } from "../types";

export type Connector = ResponseJson<"/api/connectors/{id}/", "get", 200>;
export type ConnectorInput = RequestJson<"/api/connectors/", "post">;
export type ConnectorValidationInput = RequestJson<"/api/connectors/validate/", "post">;
/** A connector technology: its parameters (what the form generator draws), JSON Schema and example. */
export type Technology = ResponseJson<"/api/connectors/technologies/", "get", 200>[number];
export type TechnologyParameter = Technology["parameters"][number];

export function getConnectors(page = 1, signal?: AbortSignal) {
  return unwrap(api.GET("/api/connectors/", { params: { query: { page } }, signal }));
}

export function getConnector(id: number, signal?: AbortSignal) {
  return unwrap(api.GET("/api/connectors/{id}/", { params: { path: { id } }, signal }));
}

export function getTechnologies(signal?: AbortSignal) {
  return unwrap(api.GET("/api/connectors/technologies/", { signal }));
}

export function createConnector(body: ConnectorInput) {
  return unwrap(api.POST("/api/connectors/", { body }));
}

export function updateConnector({ id, body }: { id: number; body: ConnectorInput }) {
  return unwrap(api.PATCH("/api/connectors/{id}/", { params: { path: { id } }, body }));
}

export function deleteConnector(id: number) {
  return unwrapEmpty(api.DELETE("/api/connectors/{id}/", { params: { path: { id } } }));
}

export function validateConnector(body: ConnectorValidationInput, signal?: AbortSignal) {
  return unwrap(api.POST("/api/connectors/validate/", { body, signal }));
}

/** Sends one message to the chatbot ("Hello" when none is given) in a short run. */
export function testConnector({ id, message }: { id: number; message?: string }) {
  return unwrap(api.POST("/api/connectors/{id}/test/", { params: { path: { id } }, body: { message } }));
}

/** The newest connection tests (the first page of the caller's `connector_test` runs). */
export function connectorTestsQueryOptions() {
  return queryOptions({
    queryKey: runKeys.connectorTests,
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/runs/", { params: { query: { kind: "connector_test", page: 1 } }, signal })),
  });
}

export type ConnectorTestState = "passed" | "failed" | "untested";

/**
 * How a connector's newest finished test went. A test from before the connector's last save does not count: the
 * settings it tested may be the typo that was fixed since, or the fix may have broken it.
 */
export function connectorTestState(
  connector: Pick<Connector, "id" | "updated_at">,
  tests: Pick<Run, "params" | "status" | "result" | "created_at">[],
): ConnectorTestState {
  const saved = Date.parse(connector.updated_at);
  const newest = tests
    .filter((run) => run.params.connector_id === connector.id && run.status !== "queued" && run.status !== "running")
    .filter((run) => !(Date.parse(run.created_at) < saved))
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
  if (newest === undefined) return "untested";
  return newest.status === "succeeded" && connectionTestOf(newest)?.ok === true ? "passed" : "failed";
}

export function connectorsPageQueryOptions(page: number) {
  return queryOptions({ queryKey: connectorKeys.page(page), queryFn: ({ signal }) => getConnectors(page, signal) });
}

export function useConnectorsPage(page: number) {
  return useQuery(connectorsPageQueryOptions(page));
}

export function useAllConnectors() {
  return useQuery({
    queryKey: connectorKeys.everything,
    queryFn: ({ signal }) => collectPages((page) => getConnectors(page, signal)),
  });
}

export function useConnector(id: number | null) {
  return useQuery({
    queryKey: connectorKeys.detail(id ?? 0),
    queryFn: ({ signal }) => getConnector(id ?? 0, signal),
    enabled: id !== null,
  });
}

export function useTechnologies() {
  return useQuery({
    queryKey: connectorKeys.technologies,
    queryFn: ({ signal }) => getTechnologies(signal),
    staleTime: Infinity,
  });
}

/** Live validation of a connector file (debounce the text before passing it). */
export function useConnectorYamlValidation(yaml: string, enabled: boolean) {
  return useQuery({
    queryKey: connectorKeys.validation(yaml),
    queryFn: ({ signal }) => validateConnector({ yaml }, signal),
    enabled: enabled && yaml.trim() !== "",
    staleTime: Infinity,
    gcTime: 60_000,
    placeholderData: (previous) => previous,
  });
}

function useInvalidateConnectors() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: connectorKeys.all });
}

export function useCreateConnector() {
  const invalidate = useInvalidateConnectors();
  return useMutation({ mutationFn: createConnector, onSuccess: invalidate });
}

export function useUpdateConnector() {
  const invalidate = useInvalidateConnectors();
  return useMutation({ mutationFn: updateConnector, onSuccess: invalidate });
}

export function useDeleteConnector() {
  const invalidate = useInvalidateConnectors();
  return useMutation({ mutationFn: deleteConnector, onSuccess: invalidate });
}

export function useTestConnector() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: testConnector,
    onSuccess: (run) => {
      queryClient.setQueryData(runKeys.detail(run.id), run);
    },
  });
}
