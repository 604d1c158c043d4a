/** In-memory workspace data for the MSW handlers: keys, connectors, projects, profiles, runs and their events. */
import type { Connector } from "../api/workspace/connectors";
import type { LLMKey } from "../api/workspace/keys";
import type { RunEvent } from "../api/runs/project-runs";
import type { Profile } from "../api/workspace/profiles";
import type { Project } from "../api/workspace/projects";
import type { Run } from "../api/runs/runs";
import { botReply, connectionTest, usage } from "./results";

const NOW = "2026-03-14T09:26:53Z";

export function makeRun(overrides: Partial<Run> = {}): Run {
  return {
    id: 1,
    kind: "ping",
    status: "queued",
    stage: "",
    progress: {},
    counters: {},
    project: null,
    project_name: null,
    params: {},
    trigger_source: "api",
    result: null,
    usage,
    cost_usd: null,
    error_type: "",
    error_message: "",
    created_at: NOW,
    started_at: null,
    finished_at: null,
    wait_seconds: null,
    duration_seconds: null,
    owner_name: "ada",
    is_owner: true,
    cancel_requested: false,
    ...overrides,
  };
}

interface StoredRun {
  run: Run;
  /** What the run looks like once "a worker" has done it (the next read returns this). */
  finished: Partial<Run> | null;
}

function createWorkspaceDb() {
  let nextId = 100;
  const id = () => nextId++;
  const state = {
    keys: [] as LLMKey[],
    connectors: [] as (Connector & { secrets: Record<string, unknown> })[],
    projects: [] as Project[],
    profiles: [] as (Profile & { project: number })[],
    runs: new Map<number, StoredRun>(),
    events: new Map<number, RunEvent[]>(),
  };

  return {
    state,
    nextId: id,
    addKey(overrides: Partial<LLMKey> = {}): LLMKey {
      const key: LLMKey = {
        id: id(),
        name: "OpenAI",
        provider: "openai",
        base_url: "",
        hint: "sk-…abcd",
        created_at: NOW,
        updated_at: NOW,
        last_checked_at: null,
        last_check_ok: null,
        last_check_message: "",
        ...overrides,
      };
      state.keys.push(key);
      return key;
    },
    addConnector(overrides: Partial<Connector> = {}, secrets: Record<string, unknown> = {}) {
      const connector = {
        id: id(),
        name: "Pizza bot",
        technology: "demo",
        params: { bot: "pizza" },
        secrets_set: Object.keys(secrets),
        projects: [],
        created_at: NOW,
        updated_at: NOW,
        ...overrides,
        secrets,
      };
      state.connectors.push(connector);
      return connector;
    },
    addProject(overrides: Partial<Project> = {}): Project {
      const project: Project = {
        id: id(),
        name: "Pizza",
        description: "",
        connector: state.connectors[0]?.id ?? 0,
        llm_key: state.keys[0]?.id ?? null,
        exploration_model: "gpt-4o-mini",
        profile_model: "gpt-4o-mini",
        judge_model: "",
        budget_usd: null,
        public: false,
        owner_name: "ada",
        is_owner: true,
        model_warnings: [],
        created_at: NOW,
        updated_at: NOW,
        ...overrides,
      };
      state.projects.push(project);
      return project;
    },
    addProfile(project: number, overrides: Partial<Profile> = {}): Profile {
      const profile = {
        id: id(),
        name: "order_a_pizza",
        text: "test_name: order_a_pizza\n",
        valid: true,
        problems: [],
        warnings: 0,
        created_at: NOW,
        updated_at: NOW,
        origin: "manual" as const,
        source_run: null,
        derived_from: null,
        ...overrides,
        project,
      };
      state.profiles.push(profile);
      return profile;
    },
    addRun(run: Partial<Run>, finished: Partial<Run> | null = null): Run {
      const stored = makeRun({ id: id(), ...run });
      state.runs.set(stored.id, { run: stored, finished });
      return stored;
    },
    /** A finished connection test of a connector, as `POST /api/connectors/{id}/test/` leaves it. */
    addConnectorTest(connectorId: number, ok: boolean, createdAt = "2026-03-14T10:00:00Z"): Run {
      return this.addRun({
        kind: "connector_test",
        status: "succeeded",
        params: { connector_id: connectorId, message: "Hello" },
        result: ok
          ? connectionTest({ technology: "demo", reply: botReply(["Hi"]), latency_s: 0.1 })
          : connectionTest({
              ok: false,
              technology: "http",
              error_code: "unreachable",
              error_message: "Connection refused.",
            }),
        created_at: createdAt,
      });
    },
    /** Reads a run the way a poll does: an unfinished run with a planned outcome finishes now. */
    readRun(runId: number): Run | undefined {
      const stored = state.runs.get(runId);
      if (!stored) return undefined;
      if (stored.finished) {
        stored.run = { ...stored.run, ...stored.finished };
        stored.finished = null;
      }
      return stored.run;
    },
    addEvents(runId: number, events: Omit<RunEvent, "id">[]) {
      const list = state.events.get(runId) ?? [];
      for (const event of events) list.push({ id: id(), ...event });
      state.events.set(runId, list);
    },
    reset() {
      nextId = 100;
      state.keys = [];
      state.connectors = [];
      state.projects = [];
      state.profiles = [];
      state.runs.clear();
      state.events.clear();
    },
  };
}

export const workspaceDb = createWorkspaceDb();
