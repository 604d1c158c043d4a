import { type APIRequestContext, expect, test } from "@playwright/test";
import { signUp, unique } from "./account";

/**
 * Real providers (#19) and same-named profiles (Web #23 item 2), against the real stack.
 *
 * The project's models are all `gpt-5-mini`, served by the e2e stack's fake OpenAI-compatible server — the strict
 * protocol double (`engine/llm/offline/protocol.py`), which refuses a temperature other than 1 and `max_tokens`
 * for the gpt-5 family as the OpenAI API does. A SENSEI run and a TRACER run, both started from the browser,
 * succeed; the SENSEI run shows the warning about the temperature its profiles asked for and the model refuses;
 * the provider never saw a refused parameter more than once. The SENSEI run plays two profiles with the same
 * name (3 and 2 conversations): the dashboard lists all 5, the two profiles keyed apart.
 */
const FAKE_LLM_URL = process.env.PARLEY_FAKE_LLM_URL ?? "http://127.0.0.1:8093/v1";
const FAKE_LLM_CONTROL = FAKE_LLM_URL.replace(/\/v1\/?$/, "");
const MODEL = "gpt-5-mini";

/** A profile that asks for a temperature gpt-5-mini refuses; `number` conversations. */
function profile(number: number): string {
  return `test_name: same_name
llm: {temperature: 0.8}
user:
  language: English
  role: You order a pizza to pick up tonight.
  context: [You pay in cash.]
  goals:
    - "order a {{size}} pizza"
    - size: {function: another(), type: string, data: [small, medium, large]}
chatbot:
  is_starter: false
  fallback: Sorry, I didn't catch that.
  output:
    - size: {type: string, description: the size of the pizza}
conversation:
  number: ${String(number)}
  goal_style: {steps: 2}
  interaction_style: [single question]
`;
}

const SCRIPT: Record<string, unknown[]> = {
  "sensei.user_turn": Array.from({ length: 40 }, () => ["I want to order a pizza", "House pizza", "small"]).flat(),
  "sensei.extract": [{ json: { size: "small" } }],
  "tracer.explore": Array.from({ length: 6 }, () => [
    "Order pizza and drinks",
    "House pizza",
    "large carbonara",
  ]).flat(),
  "tracer.extract": [
    {
      json: {
        functionalities: [{ name: "show_main_menu", description: "Offers the main menu", parameters: [], outputs: [] }],
      },
    },
    { json: { functionalities: [] } },
  ],
};

interface FakeRequest {
  path: string;
  status: number | null;
  body: unknown;
  error: unknown;
}

async function scriptFakeLlm(request: APIRequestContext) {
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
  for (const [tag, replies] of Object.entries(SCRIPT)) {
    const response = await request.post(`${FAKE_LLM_CONTROL}/_fake/script`, { data: { tag, replies } });
    expect(response.ok(), `scripting ${tag}`).toBe(true);
  }
}

/** The chat calls the fake provider received since the last reset. */
async function chatCalls(request: APIRequestContext): Promise<FakeRequest[]> {
  const response = await request.get(`${FAKE_LLM_CONTROL}/_fake/requests`);
  expect(response.ok()).toBe(true);
  return ((await response.json()) as FakeRequest[]).filter((r) => r.path.includes("/chat/completions"));
}

/** What the provider refused, by the parameter it named (each may be refused at most once per run). */
function refusals(calls: FakeRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls.filter((c) => c.status === 400)) {
    const text = JSON.stringify(call.error);
    const param = /"param":\s*"([^"]+)"/.exec(text)?.[1] ?? text.slice(0, 80);
    counts.set(param, (counts.get(param) ?? 0) + 1);
  }
  return counts;
}

test.afterAll(async ({ request }) => {
  if (!process.env.KEEP_FAKE) await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
});

test("a gpt-5 project runs SENSEI and TRACER from the browser; same-named profiles keep every conversation", async ({
  page,
  request,
}) => {
  test.setTimeout(420_000);
  const { token } = await signUp(page, "providers");
  const headers = { Authorization: `Token ${token}` };
  const post = async <T>(url: string, data: unknown): Promise<T> => {
    const response = await request.post(url, { headers, data });
    expect(response.ok(), `POST ${url}: ${await response.text()}`).toBe(true);
    return (await response.json()) as T;
  };

  const key = await post<{ id: number }>("/api/keys/", {
    name: "OpenAI-like",
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const connector = await post<{ id: number }>("/api/connectors/", {
    name: "Pizza bot",
    technology: "demo",
    params: { bot: "pizza" },
  });
  const project = await post<{ id: number }>("/api/projects/", {
    name: unique("GPT-5 project"),
    connector: connector.id,
    llm_key: key.id,
    exploration_model: MODEL,
    profile_model: MODEL,
    judge_model: MODEL,
  });
  for (const number of [3, 2]) {
    const created = await post<{ valid: boolean }>(`/api/projects/${String(project.id)}/profiles/`, {
      text: profile(number),
    });
    expect(created.valid).toBe(true);
  }

  // SENSEI, started from the test center on both profiles named "same_name".
  await scriptFakeLlm(request);
  await page.goto(`/projects/${String(project.id)}`);
  const boxes = page.getByRole("checkbox", { name: "Select same_name" });
  await expect(boxes).toHaveCount(2);
  await expect(page.getByRole("button", { name: "Run SENSEI" })).toBeVisible();
  for (const box of [boxes.nth(0), boxes.nth(1)]) {
    await expect(async () => {
      await box.check({ force: true });
      await expect(box).toBeChecked({ timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
  }
  await page.getByRole("button", { name: "Run SENSEI" }).click();
  const senseiDialog = page.getByRole("dialog", { name: "Run SENSEI" });
  await senseiDialog.getByRole("button", { name: "Start SENSEI" }).click();
  const senseiReport = senseiDialog.getByRole("link", { name: "Open the report" });
  await expect(senseiReport).toBeVisible({ timeout: 240_000 });
  await senseiReport.click();
  await expect(senseiDialog).toBeHidden();
  await expect(page).toHaveURL(/\/sensei\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: /^SENSEI run #\d+$/ })).toBeVisible();
  await expect(page.getByText("succeeded").first()).toBeVisible();
  // The temperature the profiles asked for is not sent, and the run says so: in its log, and above its figures.
  await expect(page.getByRole("list", { name: "Run log" })).toContainText(
    `${MODEL} accepts only its default temperature`,
  );
  await expect(page.getByRole("alert", { name: "Warnings" })).toContainText(
    `${MODEL} accepts only its default temperature`,
  );

  // Every conversation of both profiles, keyed apart.
  const conversations = page.getByRole("table", { name: "Conversations" });
  await expect(conversations.getByRole("button", { name: /^Read conversation/ })).toHaveCount(5);
  await expect(conversations.getByRole("button", { name: /^Read conversation \d of same_name$/ })).toHaveCount(3);
  await expect(conversations.getByRole("button", { name: /^Read conversation \d of same_name#2$/ })).toHaveCount(2);
  const perProfile = page.getByRole("table", { name: "Results per profile" });
  await expect(perProfile.getByRole("button", { name: "same_name", exact: true })).toBeVisible();
  await expect(perProfile.getByRole("button", { name: "same_name#2", exact: true })).toBeVisible();
  // No conversation lost its simulated user to the provider.
  await expect(page.getByRole("main")).not.toContainText("user_llm_failed");

  // TRACER, started from the test center.
  await page.goto(`/projects/${String(project.id)}`);
  await page.getByRole("button", { name: "Explore with TRACER" }).first().click();
  const tracerDialog = page.getByRole("dialog", { name: "Explore with TRACER" });
  await tracerDialog.getByLabel("Sessions").fill("1");
  await tracerDialog.getByLabel("Turns per session").fill("2");
  await tracerDialog.getByRole("button", { name: "Start exploring" }).click();
  const tracerReport = tracerDialog.getByRole("link", { name: "Open the report" });
  await expect(tracerReport).toBeVisible({ timeout: 240_000 });
  await expect(tracerDialog.getByText("succeeded", { exact: true }).first()).toBeVisible();
  await tracerReport.click();
  await expect(tracerDialog).toBeHidden();
  await expect(page).toHaveURL(/\/tracer\/\d+$/);
  await expect(page.getByText("Functionalities", { exact: true }).locator("..")).toContainText("1");

  // The provider saw what it accepts: gpt-5-mini calls answered without a temperature or `max_tokens`, and any
  // refusal at most once per parameter.
  const calls = (await chatCalls(request)).filter((c) => JSON.stringify(c.body).includes(MODEL));
  expect(calls.length).toBeGreaterThan(5);
  const answered = calls.filter((c) => c.status === 200);
  expect(answered.length).toBeGreaterThan(5);
  for (const call of answered) {
    const body = call.body as Record<string, unknown>;
    expect(body.max_tokens, "max_tokens sent to gpt-5-mini").toBeUndefined();
    expect([undefined, 1]).toContain(body.temperature);
  }
  for (const [param, count] of refusals(calls)) expect(count, `refusals of ${param}`).toBeLessThanOrEqual(1);
});
