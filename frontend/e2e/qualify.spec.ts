import { expect, test } from "@playwright/test";
import { post, signUp, unique } from "./account";
import { FAKE_LLM_URL } from "./fake-llm";

/**
 * Model qualification (issue 36), against the real stack: started from the LLM keys page with an offline double at
 * the tiny size (thresholds lowered in the dialog so that the tiny plan gives a verdict), its estimate shown first;
 * the worker runs it; the page shows one row per model and role, the cost-versus-kills chart and the conversation
 * behind a missed mutant; the recommendation is applied to a project, whose model picker then shows the model's
 * last qualification beside its name.
 */
test("a qualification started from the keys page is applied to a project and labels its model picker", async ({
  page,
}) => {
  test.setTimeout(420_000);
  const { token } = await signUp(page, "qualify");
  const keyName = unique("Local server");
  await post(page.request, token, "/api/keys/", {
    name: keyName,
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const connector = await post<{ id: number }>(page.request, token, "/api/connectors/", {
    name: "Pizza bot",
    technology: "demo",
    params: { bot: "pizza" },
  });
  const projectName = unique("Qualified project");
  await post(page.request, token, "/api/projects/", { name: projectName, connector: connector.id });

  await page.goto("/keys");
  await page.getByRole("button", { name: `Qualify models on ${keyName}` }).click();
  const dialog = page.getByRole("dialog", { name: `Qualify models on ${keyName}` });
  const models = dialog.getByLabel("Models");
  await models.fill("double:imperfect");
  await models.press("Enter");
  await models.press("Tab"); // closes the suggestions, which would cover the next field
  await dialog.getByLabel("Size").click();
  await page.getByRole("option", { name: /^Tiny/ }).click();
  await dialog.getByLabel("Fewest decided conversations").fill("1");
  await dialog.getByLabel("Usable: kills at least (%)").fill("10");
  await dialog.getByRole("button", { name: "Estimate" }).click();
  const estimate = dialog.getByLabel("Estimate");
  await expect(estimate).toContainText("double:imperfect");
  await expect(estimate).toContainText("offline double: no cost");
  await dialog.getByRole("button", { name: "Start qualification" }).click();
  await expect(page).toHaveURL(/\/qualifications\/\d+$/);

  const table = page.getByRole("table", { name: "Models and roles" });
  await expect(table).toBeVisible({ timeout: 360_000 });
  for (const role of ["simulated user", "judge/extractor", "explorer"])
    await expect(table.getByRole("cell", { name: role, exact: true })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Cost versus kills chart" })).toBeVisible();
  await expect(
    page.getByRole("figure", { name: "Cost versus kills chart" }).locator(".recharts-surface").first(),
  ).toBeVisible();

  // The conversation behind a missed mutant opens on the page.
  await table
    .getByRole("button", { name: "Missed mutant of double:imperfect (simulated user) 1", exact: true })
    .click();
  const conversation = page.getByRole("dialog", { name: "Conversation" });
  await expect(conversation).toBeVisible();
  await expect(conversation.getByText(/pizza/i).first()).toBeVisible();
  await page.keyboard.press("Escape");

  const recommendation = page.getByLabel("Recommendation");
  await expect(recommendation).toContainText("Simulated user double:imperfect");
  await recommendation.getByLabel("Project").click();
  await page.getByRole("option", { name: projectName }).click();
  await recommendation.getByRole("button", { name: "Apply to project" }).click();
  await expect(page.getByText("The project now uses double:imperfect (user)")).toBeVisible();

  await recommendation.getByRole("link", { name: "Open the project's settings" }).click();
  await expect(page).toHaveURL(/\/projects\/\d+\/edit$/);
  await expect(page.getByRole("combobox", { name: "Profile model" })).toHaveValue("double:imperfect");
  await expect(page.getByLabel("Last qualification of double:imperfect").first()).toContainText(
    /Last qualification: \d+ % kills · .* false alarms · .*, today/,
  );
});
