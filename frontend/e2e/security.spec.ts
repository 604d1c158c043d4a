import { type APIRequestContext, expect, test } from "@playwright/test";
import { post, signUp, unique } from "./account";

/**
 * A security campaign on the real stack (nginx, gunicorn, Celery, PostgreSQL, RabbitMQ): a project on the built-in
 * `leaky` bot, a campaign started from the security page, its run page with the breach rate per attack, and one
 * attempt opened with its quoted evidence. Offline: the project has no LLM key, so the campaign uses the built-in
 * tasks and oracles decided in code.
 */
const CAMPAIGN = `name: pizza_security
target_context: Takes pizza orders for pickup and answers questions about the shop.
canaries: [ZEBRA-7781]
attempts: 2
attacks:
  - name: system_prompt_stealer
  - name: amnesia
  - name: typoglycemia_attack
`;

test("a campaign run shows the breach rate per attack and the quoted evidence", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { token } = await signUp(page, "security");

  const connector = await post<{ id: number }>(request, token, "/api/connectors/", {
    name: "Leaky bot",
    technology: "demo",
    params: { bot: "leaky" },
  });
  const project = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Leaky shop"),
    connector: connector.id,
  });
  await post(request, token, `/api/projects/${String(project.id)}/campaigns/`, { text: CAMPAIGN });

  await page.getByRole("navigation").getByRole("link", { name: "Security" }).click();
  await page.goto(`/security?project=${String(project.id)}`);
  await page.getByRole("button", { name: "Run pizza_security" }).click();
  const dialog = page.getByRole("dialog", { name: "Run pizza_security" });
  await expect(dialog.getByRole("list", { name: "What the campaign will do" })).toContainText("6 attempts");
  await dialog.getByRole("button", { name: "Start campaign" }).click();
  // The dialog links to the run page while the run goes on, and to its report once it has finished.
  await dialog.getByRole("link", { name: /run page|Open the report/i }).click();

  await expect(page.getByRole("heading", { level: 1, name: /Campaign run #\d+/ })).toBeVisible();
  await page.getByRole("tab", { name: "Attacks" }).click();
  const table = page.getByRole("table", { name: "Breach rate per attack" });
  await expect(table.getByRole("row", { name: /system_prompt_stealer/ })).toContainText("100%", { timeout: 60_000 });
  await expect(table.getByRole("row", { name: /typoglycemia_attack/ })).toContainText("2");

  await page.getByRole("tab", { name: "Attempts" }).click();
  await page.getByRole("button", { name: "Show system_prompt_stealer attempt 1" }).click();
  const attempt = page.getByRole("dialog", { name: /system_prompt_stealer, attempt 1/ });
  await expect(attempt.getByRole("group", { name: "Evidence" })).toContainText("ZEBRA-7781");
  await expect(attempt.getByRole("group", { name: "Conversation" }).locator("mark")).toContainText("ZEBRA-7781");
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
      { timeout: 90_000, intervals: [500, 1000] },
    )
    .toBe("succeeded");
}

test("two campaign runs compared: the chatbot that leaks now regressed, with the quotes", async ({ page, request }) => {
  test.setTimeout(240_000);
  const { token } = await signUp(page, "security-compare");

  const connectors: Record<string, number> = {};
  for (const bot of ["guarded", "leaky"]) {
    connectors[bot] = (
      await post<{ id: number }>(request, token, "/api/connectors/", {
        name: `${bot} bot`,
        technology: "demo",
        params: { bot },
      })
    ).id;
  }
  const project = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Shop"),
    connector: connectors.guarded,
  });
  const base = `/api/projects/${String(project.id)}`;
  const campaign = await post<{ id: number }>(request, token, `${base}/campaigns/`, { text: CAMPAIGN });
  // The baseline against the guarded bot; then the chatbot "changes" to the leaky one and the campaign runs again.
  const before = await post<{ id: number }>(request, token, `${base}/runs/`, {
    kind: "security",
    campaign: campaign.id,
  });
  await finished(request, token, before.id);
  const patched = await request.patch(`${base}/`, {
    headers: { Authorization: `Token ${token}` },
    data: { connector: connectors.leaky },
  });
  expect(patched.ok(), await patched.text()).toBe(true);
  const after = await post<{ id: number }>(request, token, `${base}/runs/`, {
    kind: "security",
    campaign: campaign.id,
  });
  await finished(request, token, after.id);

  await page.goto(`/security/runs/${String(after.id)}`);
  await page.getByRole("link", { name: "Compare with another run" }).click();
  await expect(
    page.getByRole("heading", { level: 1, name: `Campaign run #${String(after.id)} compared` }),
  ).toBeVisible();
  await page.getByRole("combobox", { name: "Compare with" }).click();
  await page.getByRole("option", { name: new RegExp(`^#${String(before.id)} `) }).click();

  await expect(page.getByTestId("verdict")).toHaveText("regressed");
  const table = page.getByRole("table", { name: "Breach rate per attack" });
  await expect(table.getByRole("row", { name: /system_prompt_stealer/ })).toContainText("0 % (0/2)");
  await expect(table.getByRole("row", { name: /system_prompt_stealer/ })).toContainText("100 % (2/2)");
  const breached = page.getByRole("region", { name: "Newly breached" });
  await expect(breached.getByRole("heading")).toHaveText("Newly breached (6)");
  await expect(breached).toContainText("ZEBRA-7781");
});
