import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type APIRequestContext, expect, test } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { post, signUp, unique } from "./account";
import { FAKE_LLM_CONTROL, FAKE_LLM_URL } from "./fake-llm";

/**
 * pass^k on the run page and "Shrink this failure" (Shrink, pin, pass^k), on the real stack with the built-in pizza
 * bot: two scripted profiles — one whose check holds, one whose check cannot hold ("unicorn" is never said) — run
 * by SENSEI from the test center with 3 repeats. The run page's per-profile table gets its Reliability column
 * (pass^3 beside pass@1, the flaky count), the planned conversation that did not pass every repeat is listed, and
 * the failed conversation shrinks from 2 user turns to 1, pinned as a scripted profile in the test center.
 *
 * Then the same on a chatbot that is flaky on purpose: the reference pizza bot served over HTTP by the test itself
 * (`parley bots serve --fail-rate --fault-seed`, the README's flaky bot; the stack may reach 127.0.0.1), where the
 * profile with flaky conversations comes first and its flaky conversations lead the list.
 *
 * Scripted profiles run and decide with 0 LLM calls; the project still needs a key and a model to start SENSEI
 * (the fake LLM's, never called). The built-in bot is deterministic, and the flaky one draws its failures from a
 * seeded generator in the order of the turns (one conversation at a time here), so every figure is reproducible.
 */
const STEADY = `test_name: steady_order
script:
  - user: "I'd like to order a house pizza"
    expect: {contains: size}
`;

const UNICORN = `test_name: unicorn_order
script:
  - user: "Hello"
  - user: "I'd like to order a house pizza"
    expect: {contains: unicorn}
`;

async function project(request: APIRequestContext, token: string, connector: Record<string, unknown>) {
  const key = await post<{ id: number }>(request, token, "/api/keys/", {
    name: "Fake LLM",
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const bot = await post<{ id: number }>(request, token, "/api/connectors/", connector);
  return post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Reliability"),
    connector: bot.id,
    llm_key: key.id,
    exploration_model: "fake-model",
    profile_model: "fake-model",
    judge_model: "fake-model",
  });
}

async function addProfiles(request: APIRequestContext, token: string, projectId: number, texts: string[]) {
  const ids: number[] = [];
  for (const text of texts) {
    const created = await post<{ id: number; valid: boolean }>(
      request,
      token,
      `/api/projects/${String(projectId)}/profiles/`,
      { text },
    );
    expect(created.valid).toBe(true);
    ids.push(created.id);
  }
  return ids;
}

test.beforeAll(async ({ request }) => {
  // Nothing here calls the LLM; a reset keeps another spec's script from mattering either way.
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
});

test("a SENSEI run with repeats shows pass^k, and a failed conversation shrinks and is pinned", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const { token } = await signUp(page, "reliability");
  const { id: projectId } = await project(request, token, {
    name: "Pizza bot",
    technology: "demo",
    params: { bot: "pizza" },
  });
  await addProfiles(request, token, projectId, [STEADY, UNICORN]);

  // SENSEI from the test center, both profiles, 3 repeats of each planned conversation.
  await page.goto(`/projects/${String(projectId)}`);
  for (const name of ["steady_order", "unicorn_order"]) {
    const box = page.getByRole("checkbox", { name: `Select ${name}` });
    await expect(async () => {
      await box.check({ force: true });
      await expect(box).toBeChecked({ timeout: 1_000 });
    }).toPass({ timeout: 15_000 });
  }
  await page.getByRole("button", { name: "Run SENSEI" }).click();
  const dialog = page.getByRole("dialog", { name: "Run SENSEI" });
  await dialog.getByRole("textbox", { name: "Parallel conversations" }).fill("1");
  await dialog.getByRole("textbox", { name: "Repeats" }).fill("3");
  await dialog.getByRole("textbox", { name: "Seed" }).fill("5");
  await dialog.getByRole("button", { name: "Start SENSEI" }).click();
  const report = dialog.getByRole("link", { name: "Open the report" });
  await expect(report).toBeVisible({ timeout: 120_000 });
  await report.click();
  await expect(page).toHaveURL(/\/sensei\/\d+$/);
  await expect(page.getByRole("heading", { level: 1, name: /^SENSEI run #\d+$/ })).toBeVisible();
  await expect(page.getByText("succeeded").first()).toBeVisible();

  // The Reliability column: pass^3 beside pass@1 and the flaky count, per profile.
  const perProfile = page.getByRole("table", { name: "Results per profile" });
  await expect(perProfile.getByRole("columnheader", { name: "Reliability" })).toBeVisible();
  const steady = perProfile.getByRole("row").filter({ hasText: "steady_order" });
  const unicorn = perProfile.getByRole("row").filter({ hasText: "unicorn_order" });
  await expect(steady).toContainText("pass^3 100% · pass@1 100%");
  await expect(steady).toContainText("0 flaky · 1 of 1 planned decided");
  await expect(unicorn).toContainText("pass^3 0% · pass@1 0%");
  await expect(unicorn).toContainText("0 flaky · 1 of 1 planned decided");
  // Below it, the planned conversations that did not pass every repeat: only the unicorn one, failed 3 times.
  const shaky = page.getByRole("table", { name: "Conversations that did not pass every repeat" });
  await expect(shaky.getByRole("row")).toHaveCount(2);
  await expect(shaky.getByRole("row").nth(1)).toContainText("unicorn_order");
  await expect(shaky.getByRole("row").nth(1)).toContainText("failed");
  await expect(shaky.getByRole("row").nth(1)).toContainText("0 of 3 decided (of 3)");
  // Every repeat is a conversation of its own.
  const conversations = page.getByRole("table", { name: "Conversations" });
  await expect(conversations.getByRole("button", { name: /^Read conversation \d+ of unicorn_order$/ })).toHaveCount(3);
  await expect(conversations.getByRole("button", { name: /^Read conversation \d+ of steady_order$/ })).toHaveCount(3);
  await expectAccessible(page, "a SENSEI run with repeats");

  // Shrink this failure: the 2 user turns shrink to the 1 that fails, pinned as a scripted profile.
  await conversations
    .getByRole("button", { name: /^Read conversation \d+ of unicorn_order$/ })
    .first()
    .click();
  const conversation = page.getByRole("dialog", { name: /^unicorn_order — conversation \d+$/ });
  await expect(conversation.getByRole("list", { name: "Transcript" })).toBeVisible();
  await expect(conversation.getByText("Replays the user turns against the chatbot many times")).toBeVisible();
  await conversation.getByRole("button", { name: "Shrink this failure" }).click();
  const shrunk = conversation.getByRole("status", { name: "Shrunk failure" });
  await expect(shrunk).toBeVisible({ timeout: 120_000 });
  await expect(shrunk).toContainText("Shrunk from 2 to 1 user turn(s)");
  await expect(shrunk).toContainText("Reproduced in 3 of 3 replays; fails: contains");
  await expect(shrunk).toContainText("unicorn");
  await expect(shrunk.getByRole("listitem")).toHaveText(["I'd like to order a house pizza"]);
  await expect(shrunk).toContainText("0 LLM call(s)");
  const pinned = shrunk.getByRole("link", { name: /^shrunk_unicorn_order_/ });
  await expect(pinned).toBeVisible();
  const pinnedName = (await pinned.textContent()) ?? "";
  await expect(shrunk.getByRole("button", { name: "Bug report (Markdown)" })).toBeVisible();
  await expect(shrunk.getByRole("button", { name: "JUnit case" })).toBeVisible();
  await expectAccessible(page, "a shrunk failure");

  // The pinned profile is in the test center: the one-turn script with the check that fails.
  await pinned.click();
  await expect(page).toHaveURL(/\/profiles\/\d+$/);
  const editor = page.getByRole("textbox", { name: "Profile YAML" });
  await expect(editor).toContainText("I'd like to order a house pizza");
  await expect(editor).toContainText("unicorn");
  await expect(editor).not.toContainText("Hello");
  await page.goto(`/projects/${String(projectId)}`);
  await expect(page.getByRole("checkbox", { name: `Select ${pinnedName}` })).toBeVisible();
});

/** The flaky reference bot: HTTP 500 on 30 % of the user turns, drawn from a generator seeded with 11. */
const FLAKY_PORT = 8097; // not 8095, where `make real-llm` serves the local model
const PARLEY = fileURLToPath(new URL("../../backend/.venv/bin/parley", import.meta.url));

const SHAKY = `test_name: shaky_order
script:
  - user: "I'd like to order a house pizza"
    expect: {contains: size}
  - user: "a large margherita"
  - user: "1"
conversation: {number: 4}
`;

// Sorted by name, this one would come first: only its flakiness can put the other one ahead of it.
const ALWAYS_FAILS = `test_name: always_unicorn
script:
  - user: "I'd like to order a house pizza"
    expect: {contains: unicorn}
`;

const RANK: Record<string, number> = { flaky: 0, failed: 1, inconclusive: 2 };

test("on a flaky chatbot, the flaky profile and its flaky conversations come first", async ({ page, request }) => {
  test.setTimeout(240_000);
  let server: ChildProcess | undefined;
  try {
    const args = ["bots", "serve", "pizza", "--protocol", "taskyto", "--port", String(FLAKY_PORT)];
    server = spawn(PARLEY, [...args, "--fail-rate", "0.3", "--fault-seed", "11"], { stdio: "ignore" });
    await expect
      .poll(
        async () => {
          try {
            return (await request.get(`http://127.0.0.1:${String(FLAKY_PORT)}/__coverage`)).ok();
          } catch {
            return false;
          }
        },
        { timeout: 30_000 },
      )
      .toBe(true);

    const { token } = await signUp(page, "reliability-flaky");
    const { id: projectId } = await project(request, token, {
      name: "Flaky pizza bot",
      technology: "taskyto",
      params: { base_url: `http://127.0.0.1:${String(FLAKY_PORT)}` },
    });
    const profiles = await addProfiles(request, token, projectId, [SHAKY, ALWAYS_FAILS]);
    // Started through the API this time; one conversation at a time keeps the order of the turns, so the seeded
    // failures fall on the same turns every time.
    const run = await post<{ id: number }>(request, token, `/api/projects/${String(projectId)}/runs/`, {
      kind: "sensei",
      profiles,
      repeats: 3,
      concurrency: 1,
      seed: 5,
    });
    await page.goto(`/sensei/${String(run.id)}`);
    await expect(page.getByRole("heading", { level: 1, name: `SENSEI run #${String(run.id)}` })).toBeVisible();
    await expect(page.getByText("succeeded").first()).toBeVisible({ timeout: 120_000 });

    // The profile with flaky conversations first, though its name sorts after the other's.
    const rows = page.getByRole("table", { name: "Results per profile" }).getByRole("row");
    await expect(rows).toHaveCount(3);
    await expect(rows.nth(1)).toContainText("shaky_order");
    await expect(rows.nth(1)).toContainText(/pass\^3 \d+% · pass@1 \d+%/);
    await expect(rows.nth(1)).toContainText(/[1-9]\d* flaky · 4 of 4 planned decided/);
    await expect(rows.nth(2)).toContainText("always_unicorn");
    await expect(rows.nth(2)).toContainText("pass^3 0% · pass@1 0%");
    await expect(rows.nth(2)).toContainText("0 flaky · 1 of 1 planned decided");
    // pass^k below pass@1 on the flaky profile: some repeats passed, yet not every planned conversation passed all.
    const figures = /pass\^3 (\d+)% · pass@1 (\d+)%/.exec((await rows.nth(1).textContent()) ?? "");
    expect(Number(figures?.[1])).toBeLessThan(Number(figures?.[2]));

    // The planned conversations that did not pass every repeat: the flaky ones first, then the failed ones.
    const shaky = page.getByRole("table", { name: "Conversations that did not pass every repeat" });
    await expect(shaky.getByRole("row").nth(1)).toContainText("shaky_order");
    await expect(shaky.getByRole("row").nth(1)).toContainText("flaky");
    const stability = await shaky
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.children.item(2)?.textContent.trim() ?? ""));
    expect(stability).toContain("failed");
    expect(stability).toEqual([...stability].sort((a, b) => (RANK[a] ?? 9) - (RANK[b] ?? 9)));
    await expect(
      shaky.getByRole("row").filter({ hasText: "always_unicorn" }).filter({ hasText: "0 of 3 decided (of 3)" }),
    ).toHaveCount(1);
    await expectAccessible(page, "a SENSEI run with flaky conversations");
  } finally {
    server?.kill("SIGTERM");
  }
});
