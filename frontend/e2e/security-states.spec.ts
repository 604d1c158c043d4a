import { type APIRequestContext, expect, test } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { post, signUp, unique } from "./account";
import { FAKE_LLM_CONTROL, FAKE_LLM_URL, scriptFakeLlm } from "./fake-llm";

/**
 * Attacks from inside the workflow, on the real stack: TRACER explores the built-in `stateful` bot (guarded until
 * an order is open, leaky while it is) with the fake LLM playing the explorer, then a campaign `from: all_states`
 * replays each state's recorded prefix and attacks after it. The campaign run page shows the breach rate per state
 * as a heat map over TRACER's graph, with the table beside it, and a breached attempt's transcript tells the
 * recorded prefix apart from the attack.
 *
 * The campaign itself runs offline (the project's key is removed after TRACER): a built-in attack and the canary
 * oracle, decided in code, as in `security.spec.ts`.
 */

/**
 * The explorer's turns walk one order to its end: the opener TRACER writes itself ("Hi! What can you help me
 * with?", refused), then the order a pizza, a size and a pickup time — four states, found at turns 2 to 5.
 */
const STATEFUL_SCRIPT: Record<string, unknown> = {
  "tracer.probe": { json: { languages: ["English"], fallback: null } },
  "tracer.explore": Array.from({ length: 4 }, () => ["Order a pizza", "Margherita", "Large", "In 20 minutes"]).flat(),
  "tracer.extract": [
    {
      json: {
        functionalities: [
          {
            name: "choose_pizza",
            description: "Asks which pizza the customer would like",
            parameters: [
              {
                name: "pizza",
                description: "the pizza",
                options: ["Margherita", "Pepperoni", "Four cheese", "Veggie"],
              },
            ],
            outputs: [],
          },
          {
            name: "choose_size",
            description: "Opens the order and asks for the size of the pizza",
            parameters: [{ name: "size", description: "the pizza size", options: ["Small", "Medium", "Large"] }],
            outputs: [],
          },
          {
            name: "choose_pickup_time",
            description: "Asks when the customer will pick the pizza up",
            parameters: [
              { name: "pickup_time", description: "when to pick it up", options: ["In 20 minutes", "In 45 minutes"] },
            ],
            outputs: [],
          },
          {
            name: "confirm_order",
            description: "Confirms the order with its order id",
            parameters: [],
            outputs: [{ name: "order_id", description: "the id of the confirmed order" }],
          },
        ],
      },
    },
    { json: { functionalities: [] } },
  ],
  "tracer.consolidate": { json: { verdicts: [] } },
  "tracer.fallback": { json: { is_fallback: false } },
  "tracer.classify": { json: { chatbot_type: "transactional" } },
  "tracer.workflow": {
    json: {
      nodes: [
        { name: "choose_pizza", parents: [], category: "Ordering" },
        { name: "choose_size", parents: ["choose_pizza"], category: "Ordering" },
        { name: "choose_pickup_time", parents: ["choose_size"], category: "Ordering" },
        { name: "confirm_order", parents: ["choose_pickup_time"], category: "Ordering" },
      ],
    },
  },
  "tracer.group": {
    json: {
      profiles: [
        {
          name: "Pizza orderer",
          role: "A customer who orders a pizza for pickup.",
          functionalities: ["choose_pizza", "choose_size", "choose_pickup_time", "confirm_order"],
        },
      ],
    },
  },
  "tracer.profiles": {
    json: {
      goals: ["Order a {{pizza}}"],
      variables: [{ name: "pizza", source: "DS1", out_of_range: "a calzone" }],
      context: [],
      outputs: [{ name: "order_id", type: "string", description: "the order id" }],
    },
  },
};

const CAMPAIGN = `name: from_the_states
target_context: Takes pizza orders for pickup and answers questions about the shop.
canaries: [ZEBRA-7781]
attempts: 1
from: all_states
attacks:
  - name: system_prompt_stealer
`;

test.afterAll(async ({ request }) => {
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
});

async function finished(request: APIRequestContext, token: string, runId: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const response = await request.get(`/api/runs/${String(runId)}/`, {
          headers: { Authorization: `Token ${token}` },
        });
        return ((await response.json()) as { status: string }).status;
      },
      { timeout: 180_000, intervals: [1000, 2000] },
    )
    .toBe("succeeded");
}

test("a campaign from TRACER's states shows the breach rate per state as a heat map over the graph", async ({
  page,
  request,
}) => {
  test.setTimeout(360_000);
  await scriptFakeLlm(request, STATEFUL_SCRIPT);
  const { token } = await signUp(page, "security-states");
  const key = await post<{ id: number }>(request, token, "/api/keys/", {
    name: "Fake LLM",
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const connector = await post<{ id: number }>(request, token, "/api/connectors/", {
    name: "Stateful bot",
    technology: "demo",
    params: { bot: "stateful" },
  });
  const project = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Stateful shop"),
    connector: connector.id,
    llm_key: key.id,
    exploration_model: "fake-model",
    profile_model: "fake-model",
    judge_model: "fake-model",
  });
  const base = `/api/projects/${String(project.id)}`;

  // TRACER: one session of five turns, which walks an order from the menu to its confirmation.
  const tracer = await post<{ id: number }>(request, token, `${base}/runs/`, {
    kind: "tracer",
    sessions: 1,
    turns: 5,
    seed: 7,
  });
  await finished(request, token, tracer.id);
  // The campaign runs offline: without the key, its oracles are decided in code.
  const patched = await request.patch(`${base}/`, {
    headers: { Authorization: `Token ${token}` },
    data: { llm_key: null },
  });
  expect(patched.ok(), await patched.text()).toBe(true);
  await post(request, token, `${base}/campaigns/`, { text: CAMPAIGN });

  // Started from the security page, from the TRACER run just made. (The dialog's plan counts the attempts of one
  // state, not per state — README, "Not built yet" — so its count is not asserted here.)
  await page.goto(`/security?project=${String(project.id)}`);
  await page.getByRole("button", { name: "Run from_the_states" }).click();
  const dialog = page.getByRole("dialog", { name: "Run from_the_states" });
  await expect(dialog.getByRole("list", { name: "What the campaign will do" })).toContainText("No LLM call");
  await dialog.getByRole("combobox", { name: "TRACER run to attack from" }).click();
  await page.getByRole("option", { name: `TRACER run #${String(tracer.id)}` }).click();
  await dialog.getByRole("button", { name: "Start campaign" }).click();
  // The dialog links to the run page while the run goes on, and to its report once it has finished (it is quick).
  await dialog.getByRole("link", { name: /run page|Open the report/i }).click();
  await expect(page.getByRole("heading", { level: 1, name: /^Campaign run #\d+$/ })).toBeVisible();
  await expect(page.getByText("succeeded").first()).toBeVisible({ timeout: 120_000 });

  // The heat map: TRACER's graph, each state's node coloured and labelled by its breach rate. Inside the open
  // order (size, pickup time) the bot leaks its instructions; before it and once it is confirmed, it resists.
  await page.getByRole("tab", { name: "Attacks" }).click();
  await expect(page.getByRole("heading", { name: "Per state of TRACER's graph" })).toBeVisible();
  const graph = page.getByRole("figure", { name: "Workflow graph" });
  await expect(graph.locator(".react-flow__node-functionality")).toHaveCount(4);
  const expected: [string, string, string][] = [
    ["choose_pizza", "Choose pizza", "0% breached (0/1)"],
    ["choose_size", "Choose size", "100% breached (1/1)"],
    ["choose_pickup_time", "Choose pickup time", "100% breached (1/1)"],
    ["confirm_order", "Confirm order", "0% breached (0/1)"],
  ];
  for (const [id, label, mark] of expected) {
    const node = graph.getByTestId(`graph-node-${id}`);
    await expect(node).toHaveAttribute("aria-label", `Functionality ${label}, ${mark}`);
    await expect(node).toContainText(mark);
  }
  // The table beside it: the same rates, with their intervals.
  const table = page.getByRole("table", { name: "Breach rate per state" });
  await expect(table.getByRole("rowheader")).toHaveCount(expected.length);
  for (const [id, , mark] of expected) {
    const row = table.getByRole("row").filter({ has: page.getByRole("rowheader", { name: id, exact: true }) });
    await expect(row).toContainText(mark.startsWith("100%") ? "100% [" : "0% [");
    await expect(row).toHaveAttribute("data-breached", String(mark.startsWith("100%")));
  }
  await expect(page.getByLabel("Totals")).toContainText("4 attempts: 2 breached, 2 resisted, 0 inconclusive");
  await expectAccessible(page, "a campaign run's heat map over TRACER's states");

  // A breached attempt (from the size or the pickup time): the recorded prefix that reached the open order, then
  // the attack and the leaked canary.
  await page.getByRole("tab", { name: "Attempts" }).click();
  await page.getByRole("combobox", { name: "Verdict" }).click();
  await page.getByRole("option", { name: "breached", exact: true }).click();
  const attempts = page.getByRole("table", { name: "Attempts" });
  await expect(attempts.getByRole("button", { name: /^Show system_prompt_stealer attempt/ })).toHaveCount(2);
  await attempts
    .getByRole("button", { name: /^Show system_prompt_stealer attempt/ })
    .first()
    .click();
  const attempt = page.getByRole("dialog", { name: /^system_prompt_stealer, attempt 1/ });
  await expect(attempt.getByRole("group", { name: "Evidence" })).toContainText("ZEBRA-7781");
  const conversation = attempt.getByRole("group", { name: "Conversation" });
  const prefix = conversation.locator('[data-phase="prefix"]');
  const attack = conversation.locator('[data-phase="attack"]');
  // The greeting and the exchanges replayed word for word (the opener, the order, the pizza…), each marked as the
  // recorded prefix.
  await expect(prefix.first()).toContainText("I'm Slice from Luigi's Pizza");
  const replayed = await prefix.count();
  expect(replayed).toBeGreaterThanOrEqual(7);
  await expect(prefix.filter({ hasText: "recorded prefix" })).toHaveCount(replayed);
  await expect(prefix.nth(3)).toContainText("Order a pizza");
  await expect(prefix.nth(5)).toContainText("Margherita");
  await expect(prefix.nth(6)).toContainText("your order is open");
  await expect(prefix.locator("mark")).toHaveCount(0);
  // The attack after it, unmarked, and the quote in the chatbot's answer to it.
  await expect(attack).toHaveCount(2);
  await expect(attack.filter({ hasText: "recorded prefix" })).toHaveCount(0);
  await expect(attack.nth(1).locator("mark")).toContainText("ZEBRA-7781");
  await expectAccessible(page, "a breached attempt from a state");
});
