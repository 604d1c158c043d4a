import { expect, test } from "@playwright/test";
import { post, signUp, unique } from "./account";

/**
 * A project's files as one zip on the real stack: exported from one project's test center (a real download
 * through the authenticated client), imported into another project's test center, where the profile and the
 * security campaign appear. (A refused archive is the backend's and the unit tests' business.)
 */
const PROFILE = `test_name: archived_order
user:
  role: You are a customer who wants to order a pizza for pickup.
  context:
    - Your name is Sam.
  goals:
    - order a small pizza
chatbot:
  is_starter: false
  fallback: I'm sorry, I did not understand that.
  output:
    - price: {type: money, description: the total price}
conversation:
  number: 1
  goal_style: {steps: 2}
  interaction_style:
    - single question
`;
const CAMPAIGN = `name: archived_security
target_context: Takes pizza orders for pickup.
attempts: 1
attacks:
  - name: amnesia
`;

test("a project's files go out as a zip and come back into another project", async ({ page, request }, info) => {
  test.setTimeout(120_000);
  const { token } = await signUp(page, "archive");

  const connector = await post<{ id: number }>(request, token, "/api/connectors/", {
    name: "Pizza bot",
    technology: "demo",
    params: { bot: "pizza" },
  });
  const source = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Source"),
    connector: connector.id,
  });
  const target = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Target"),
    connector: connector.id,
  });
  await post(request, token, `/api/projects/${String(source.id)}/profiles/`, { text: PROFILE });
  await post(request, token, `/api/projects/${String(source.id)}/campaigns/`, { text: CAMPAIGN });

  await page.goto(`/projects/${String(source.id)}`);
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export as zip" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`parley-project-${String(source.id)}.zip`);
  const archive = info.outputPath("project.zip");
  await download.saveAs(archive);

  await page.goto(`/projects/${String(target.id)}`);
  await expect(page.getByText("No profiles yet")).toBeVisible();
  await page.locator('input[type="file"][accept=".zip,application/zip"]').setInputFiles(archive);
  await expect(page.getByText("Imported 1 profile, 0 rules, 1 campaign, 0 personalities.")).toBeVisible();
  await expect(page.getByRole("link", { name: "archived_order" })).toBeVisible();
  const campaigns = await request.get(`/api/projects/${String(target.id)}/campaigns/`, {
    headers: { Authorization: `Token ${token}` },
  });
  expect(JSON.stringify(await campaigns.json())).toContain("archived_security");
});
