/** MSW handlers for the workspace and runs API, over `workspaceDb`, with the server's error bodies. */
import { http, HttpResponse } from "msw";
import type { Connector } from "../api/workspace/connectors";
import type { Run } from "../api/runs/runs";
import type { LLMKeyInput } from "../api/workspace/keys";
import type { ProjectInput } from "../api/workspace/projects";
import { db } from "./mock-db";
import { workspaceDb } from "./workspace-db";
import { botReply, connectionTest } from "./results";

const error = (status: number, detail: string, code: string, fields?: Record<string, string[]>) =>
  HttpResponse.json({ detail, code, ...(fields ? { fields } : {}) }, { status });
const invalid = (fields: Record<string, string[]>) =>
  error(400, "Please correct the highlighted fields.", "invalid", fields);
const notFound = () => error(404, "Not found.", "not_found");

function signedIn(request: Request): boolean {
  const header = request.headers.get("Authorization") ?? "";
  return db.userForToken(header.replace(/^Token /, "")) !== undefined;
}

function page<T>(rows: T[], url: string) {
  const pageNumber = Number(new URL(url).searchParams.get("page") ?? "1");
  const start = (pageNumber - 1) * 25;
  return {
    count: rows.length,
    next: start + 25 < rows.length ? `${url}?page=${String(pageNumber + 1)}` : null,
    previous: null,
    results: rows.slice(start, start + 25),
  };
}

export const TECHNOLOGIES = [
  {
    name: "demo",
    description: "Parley's built-in reference chatbots, in process (no network).",
    parameters: [
      {
        name: "bot",
        type: "string",
        required: true,
        default: null,
        secret: false,
        description: "Name of the reference chatbot.",
      },
    ],
    json_schema: {
      type: "object",
      properties: { bot: { type: "string", description: "Name of the reference chatbot." } },
      required: ["bot"],
    },
    example: { bot: "pizza" },
  },
  {
    name: "rasa",
    description: "A Rasa assistant through its REST webhook channel.",
    parameters: [
      {
        name: "base_url",
        type: "string",
        required: true,
        default: null,
        secret: false,
        description: "The Rasa server.",
      },
      { name: "token", type: "string", required: false, default: null, secret: true, description: "Bearer token." },
      { name: "timeout", type: "number", required: false, default: 60, secret: false, description: "Seconds to wait." },
    ],
    json_schema: { type: "object", properties: {} },
    example: { base_url: "http://rasa.example.com:5005" },
  },
  {
    name: "http",
    description: "Any JSON-over-HTTP chatbot, described in YAML.",
    parameters: [
      { name: "base_url", type: "string", required: true, default: null, secret: false, description: "Root URL." },
      {
        name: "send_message",
        type: "object",
        required: true,
        default: null,
        secret: false,
        description: "Request that sends one user turn.",
      },
      { name: "headers", type: "object", required: false, default: null, secret: true, description: "Headers." },
    ],
    json_schema: {
      type: "object",
      properties: {
        base_url: { type: "string", description: "Root URL." },
        send_message: { $ref: "#/$defs/Endpoint", description: "Request that sends one user turn." },
      },
      $defs: {
        Endpoint: {
          type: "object",
          properties: { path: { type: "string" }, method: { enum: ["GET", "POST", "PUT"] } },
        },
      },
    },
    example: {
      base_url: "https://bot.example.com/api",
      send_message: { path: "/chat", payload_template: { text: "{user_msg}" } },
    },
  },
];

export const PROFILE_SCHEMA = {
  type: "object",
  properties: {
    test_name: { type: "string", description: "Unique name of this profile." },
    llm: { type: "object", properties: { temperature: { type: "number", default: 0.8 } } },
    user: { type: "object", properties: { role: { type: "string" }, goals: { type: "array" } } },
    chatbot: { type: "object", properties: { is_starter: { type: "boolean" } } },
  },
};

/** The mock validator: a line containing `oops` is an unknown key; a profile needs `test_name`. */
export function mockValidate(text: string) {
  const problems = text.split("\n").flatMap((line, index) => {
    const column = line.indexOf("oops");
    return column === -1
      ? []
      : [
          {
            severity: "error",
            message: "unknown key `oops`",
            line: index + 1,
            column: column + 1,
            path: "oops",
            hint: "Known keys here: test_name, llm, user.",
          },
        ];
  });
  if (!/^test_name:/m.test(text))
    problems.push({
      severity: "error",
      message: "test_name is required",
      line: 1,
      column: 1,
      path: "test_name",
      hint: "",
    });
  const name = /^test_name:\s*(\S+)/m.exec(text)?.[1] ?? null;
  return { valid: problems.length === 0, name, problems };
}

function startRun(kind: string, result: Run["result"], extra: Record<string, unknown> = {}) {
  return workspaceDb.addRun(
    { kind: kind as never, status: "queued", ...extra },
    { status: "succeeded", result, duration_seconds: 1.2, wait_seconds: 0.1 },
  );
}

export const workspaceHandlers = [
  http.all("/api/*", ({ request }) => {
    const path = new URL(request.url).pathname;
    if (path.startsWith("/api/auth/") || path === "/api/health/" || path.startsWith("/api/schemas/")) return undefined;
    return signedIn(request)
      ? undefined
      : error(401, "Authentication credentials were not provided.", "not_authenticated");
  }),

  http.get("/api/providers/", () =>
    HttpResponse.json([
      {
        id: "openai",
        label: "OpenAI",
        needs_base_url: false,
        base_url: "",
        default_model: "gpt-4o-mini",
        fallback_models: ["gpt-4o-mini", "gpt-4o"],
      },
      {
        id: "openai-compatible",
        label: "OpenAI-compatible server",
        needs_base_url: true,
        base_url: "",
        default_model: "",
        fallback_models: [],
      },
    ]),
  ),

  http.get("/api/keys/", ({ request }) => HttpResponse.json(page(workspaceDb.state.keys, request.url))),
  http.post("/api/keys/", async ({ request }) => {
    const body = (await request.json()) as LLMKeyInput;
    if (workspaceDb.state.keys.some((k) => k.name.toLowerCase() === body.name.toLowerCase()))
      return invalid({ name: ["You already have a key with this name."] });
    if (body.provider === "openai-compatible" && !body.base_url)
      return invalid({ base_url: ["An OpenAI-compatible server needs its base URL."] });
    const key = workspaceDb.addKey({
      name: body.name,
      provider: body.provider,
      base_url: body.base_url ?? "",
      hint: body.key ? `…${body.key.slice(-4)}` : "",
    });
    return HttpResponse.json(key, { status: 201 });
  }),
  http.patch("/api/keys/:id/", async ({ request, params }) => {
    const key = workspaceDb.state.keys.find((k) => k.id === Number(params.id));
    if (!key) return notFound();
    Object.assign(key, (await request.json()) as object);
    return HttpResponse.json(key);
  }),
  http.delete("/api/keys/:id/", ({ params }) => {
    workspaceDb.state.keys = workspaceDb.state.keys.filter((k) => k.id !== Number(params.id));
    return new HttpResponse(null, { status: 204 });
  }),
  http.post("/api/keys/:id/test/", ({ params }) => {
    const key = workspaceDb.state.keys.find((k) => k.id === Number(params.id));
    if (!key) return notFound();
    Object.assign(key, {
      last_check_ok: true,
      last_check_message: "The key works (3 models).",
      last_checked_at: "2026-03-14T10:00:00Z",
    });
    return HttpResponse.json(
      startRun("key_test", { kind: "key_test", ok: true, message: "The key works (3 models)." }),
      { status: 202 },
    );
  }),
  // Model qualification (issue 36): no key has been qualified in these tests.
  http.get("/api/keys/:id/qualifications/", () => HttpResponse.json([])),
  http.post("/api/keys/:id/models/", () =>
    HttpResponse.json(
      startRun("key_models", {
        kind: "key_models",
        ok: true,
        message: "",
        models: ["fake-small", "fake-large"],
        source: "live",
      }),
      { status: 202 },
    ),
  ),

  http.get("/api/connectors/technologies/", () => HttpResponse.json(TECHNOLOGIES)),
  http.post("/api/connectors/validate/", async ({ request }) => {
    const body = (await request.json()) as { yaml?: string };
    const ok = body.yaml?.includes("technology:") ?? false;
    return HttpResponse.json(
      ok
        ? { valid: true, technology: "http", problems: [] }
        : {
            valid: false,
            technology: null,
            problems: [
              {
                severity: "error",
                message: "technology is required",
                line: 1,
                column: 1,
                path: "technology",
                hint: null,
              },
            ],
          },
    );
  }),
  http.get("/api/connectors/", ({ request }) =>
    HttpResponse.json(page(workspaceDb.state.connectors.map(publicConnector), request.url)),
  ),
  http.get("/api/connectors/:id/", ({ params }) => {
    const connector = workspaceDb.state.connectors.find((c) => c.id === Number(params.id));
    return connector ? HttpResponse.json(publicConnector(connector)) : notFound();
  }),
  http.post("/api/connectors/", async ({ request }) => {
    const body = (await request.json()) as {
      name: string;
      technology?: string;
      params?: Record<string, unknown>;
      yaml?: string;
    };
    if (workspaceDb.state.connectors.some((c) => c.name === body.name))
      return invalid({ name: ["You already have a connector with this name."] });
    if (body.technology === "demo" && body.params?.bot !== "pizza")
      return invalid({ "params.bot": ["No reference chatbot named that."] });
    const connector = workspaceDb.addConnector({
      name: body.name,
      technology: body.technology ?? "http",
      params: body.params ?? {},
    });
    return HttpResponse.json(publicConnector(connector), { status: 201 });
  }),
  http.patch("/api/connectors/:id/", async ({ request, params }) => {
    const connector = workspaceDb.state.connectors.find((c) => c.id === Number(params.id));
    if (!connector) return notFound();
    const body = (await request.json()) as { name?: string; params?: Record<string, unknown> };
    if (body.name) connector.name = body.name;
    if (body.params) connector.params = body.params;
    return HttpResponse.json(publicConnector(connector));
  }),
  http.delete("/api/connectors/:id/", ({ params }) => {
    workspaceDb.state.connectors = workspaceDb.state.connectors.filter((c) => c.id !== Number(params.id));
    return new HttpResponse(null, { status: 204 });
  }),
  http.post("/api/connectors/:id/test/", () =>
    HttpResponse.json(
      startRun(
        "connector_test",
        connectionTest({
          technology: "demo",
          message_sent: "Hello",
          greeting: botReply(["Welcome to Pizza!"]),
          reply: botReply(["<img src=x onerror=alert(1)>What size?"], ["Small", "Large"]),
          raw_excerpt: '{"text": "<b>raw</b>"}',
          latency_s: 0.25,
        }),
      ),
      { status: 202 },
    ),
  ),

  http.get("/api/projects/", ({ request }) => HttpResponse.json(page(workspaceDb.state.projects, request.url))),
  http.get("/api/projects/:id/", ({ params }) => {
    const project = workspaceDb.state.projects.find((p) => p.id === Number(params.id));
    return project ? HttpResponse.json(project) : notFound();
  }),
  http.post("/api/projects/", async ({ request }) => {
    const body = (await request.json()) as ProjectInput;
    if (!workspaceDb.state.connectors.some((c) => c.id === body.connector))
      return invalid({ connector: ["Invalid pk - object does not exist."] });
    if (body.llm_key !== null && body.llm_key !== undefined && !body.exploration_model?.trim())
      return invalid({ exploration_model: ["Choose the exploration model: TRACER explores with it."] });
    return HttpResponse.json(workspaceDb.addProject(body), { status: 201 });
  }),
  http.patch("/api/projects/:id/", async ({ request, params }) => {
    const project = workspaceDb.state.projects.find((p) => p.id === Number(params.id));
    if (!project) return notFound();
    Object.assign(project, (await request.json()) as object);
    return HttpResponse.json(project);
  }),
  http.delete("/api/projects/:id/", ({ params }) => {
    workspaceDb.state.projects = workspaceDb.state.projects.filter((p) => p.id !== Number(params.id));
    return new HttpResponse(null, { status: 204 });
  }),

  http.get("/api/projects/:pid/profiles/template/", () =>
    HttpResponse.json({ text: "test_name: my_profile\nuser:\n  role: a customer\n" }),
  ),
  http.post("/api/projects/:pid/profiles/upload/", async ({ request, params }) => {
    const form = await request.formData();
    const stored = [];
    for (const entry of form.getAll("files")) {
      if (typeof entry === "string") continue;
      const text = await entry.text();
      const result = mockValidate(text);
      stored.push(
        workspaceDb.addProfile(Number(params.pid), {
          text,
          name: result.name ?? entry.name,
          valid: result.valid,
          problems: result.problems as never,
        }),
      );
    }
    return HttpResponse.json(stored, { status: 201 });
  }),
  http.post("/api/projects/:pid/profiles/validate/", async ({ request }) => {
    const body = (await request.json()) as { text: string };
    return HttpResponse.json(mockValidate(body.text));
  }),
  http.get("/api/projects/:pid/profiles/", ({ request, params }) =>
    HttpResponse.json(
      page(
        workspaceDb.state.profiles.filter((p) => p.project === Number(params.pid)),
        request.url,
      ),
    ),
  ),
  http.get("/api/projects/:pid/profiles/:id/", ({ params }) => {
    const profile = workspaceDb.state.profiles.find((p) => p.id === Number(params.id));
    return profile ? HttpResponse.json(profile) : notFound();
  }),
  http.post("/api/projects/:pid/profiles/", async ({ request, params }) => {
    const { text } = (await request.json()) as { text: string };
    const result = mockValidate(text);
    const profile = workspaceDb.addProfile(Number(params.pid), {
      text,
      name: result.name ?? "untitled",
      valid: result.valid,
      problems: result.problems as never,
    });
    return HttpResponse.json(profile, { status: 201 });
  }),
  http.patch("/api/projects/:pid/profiles/:id/", async ({ request, params }) => {
    const profile = workspaceDb.state.profiles.find((p) => p.id === Number(params.id));
    if (!profile) return notFound();
    const { text } = (await request.json()) as { text: string };
    const result = mockValidate(text);
    Object.assign(profile, { text, valid: result.valid, problems: result.problems, name: result.name ?? profile.name });
    return HttpResponse.json(profile);
  }),
  http.delete("/api/projects/:pid/profiles/:id/", ({ params }) => {
    workspaceDb.state.profiles = workspaceDb.state.profiles.filter((p) => p.id !== Number(params.id));
    return new HttpResponse(null, { status: 204 });
  }),
  http.post("/api/projects/:pid/profiles/:id/plan/", () =>
    HttpResponse.json({
      conversations: 2,
      seed: 7,
      rows: [{ size: "small" }, { size: "large" }],
      estimated_cost_usd: 0.0123,
    }),
  ),

  http.post("/api/projects/:pid/runs/", async ({ request, params }) => {
    const body = (await request.json()) as { kind: string };
    const project = workspaceDb.state.projects.find((p) => p.id === Number(params.pid));
    if (!project) return notFound();
    if (project.llm_key === null)
      return invalid({ non_field_errors: ["This project has no LLM key; choose one in the project's settings."] });
    const run = workspaceDb.addRun({
      kind: body.kind as never,
      status: "running",
      stage: "exploring",
      progress: { done: 1, total: 4 },
      project: project.id,
      project_name: project.name,
    });
    return HttpResponse.json(run, { status: 201 });
  }),
  http.get("/api/runs/", ({ request }) => {
    const kind = new URL(request.url).searchParams.get("kind");
    const runs = [...workspaceDb.state.runs.values()].map((s) => s.run).filter((run) => !kind || run.kind === kind);
    return HttpResponse.json(page(runs, request.url));
  }),
  http.get("/api/runs/:id/", ({ params }) => {
    const run = workspaceDb.readRun(Number(params.id));
    return run ? HttpResponse.json(run) : notFound();
  }),
  http.get("/api/runs/:id/events/", ({ request, params }) => {
    const after = Number(new URL(request.url).searchParams.get("after") ?? "0");
    const events = (workspaceDb.state.events.get(Number(params.id)) ?? []).filter((e) => e.id > after);
    return HttpResponse.json({ results: events, next_after: events.at(-1)?.id ?? after });
  }),
  http.post("/api/runs/:id/cancel/", ({ params }) => {
    const stored = workspaceDb.state.runs.get(Number(params.id));
    if (!stored) return notFound();
    stored.run = { ...stored.run, status: "cancelled", cancel_requested: true };
    return HttpResponse.json(stored.run, { status: 202 });
  }),

  http.get("/api/schemas/:kind/", () => HttpResponse.json(PROFILE_SCHEMA)),
];

function publicConnector(connector: Connector & { secrets: Record<string, unknown> }): Connector {
  const { secrets, ...rest } = connector;
  return { ...rest, secrets_set: Object.keys(secrets) };
}
