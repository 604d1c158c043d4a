import { expect, type Page, test, type TestInfo } from "@playwright/test";
import { FAKE_LLM_URL, scriptFakeLlm } from "./fake-llm";

/**
 * The workspace from a new account to a first TRACER run, against the real stack:
 * key → connector (the built-in pizza bot, no network) → project → a profile with an error, fixed → plan →
 * TRACER. Each screen is saved as a screenshot in the test's output folder.
 *
 * The LLM is the fake OpenAI-compatible server the e2e stack starts (PARLEY_FAKE_LLM_URL).
 */
const PASSWORD = "A long and unusual e2e passphrase 42";

function unique(prefix: string): string {
  return `${prefix}-${String(Date.now())}-${Math.random().toString(36).slice(2, 6)}`;
}

async function snap(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

async function choose(page: Page, label: RegExp, option: string | RegExp) {
  await page.getByRole("combobox", { name: label }).click();
  await page.getByRole("option", { name: option }).click();
}

/** Replaces the YAML editor's text (typed as one insertion, so the editor does not re-indent it). */
async function replaceEditorText(page: Page, text: string) {
  const editor = page.getByRole("textbox", { name: "Profile YAML" });
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(text);
}

function profile(steps: string): string {
  return [
    "test_name: order_a_pizza",
    "llm:",
    "  temperature: 0.5",
    "user:",
    "  language: English",
    "  role: You are a customer who wants to order a pizza for pickup.",
    "  context:",
    "    - Your name is Sam.",
    "  goals:",
    '    - "order a {{size}} pizza"',
    "    - size:",
    "        function: forward()",
    "        type: string",
    "        data: [small, large]",
    "chatbot:",
    "  is_starter: false",
    "  fallback: I'm sorry, I did not understand that.",
    "  output:",
    "    - price:",
    "        type: money",
    "        description: the total price",
    "conversation:",
    "  number: combinations",
    "  goal_style:",
    `    steps: ${steps}`,
    "  interaction_style:",
    "    - single question",
    "",
  ].join("\n");
}

test("from a new account to a first TRACER run", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  // The fake LLM's answers are shared by every spec: set the ones this one relies on (the pizza bot's steps).
  await scriptFakeLlm(request);

  // Sign up.
  await page.goto("/signup");
  await page.getByLabel("E-mail").fill(`${unique("workspace")}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("complementary", { name: "Setup progress" })).toContainText("Setup 0/5");
  await page.getByRole("navigation").getByRole("link", { name: "Setup guide" }).click();
  await expect(page.getByRole("heading", { name: "Setup guide" })).toBeVisible();
  await snap(page, testInfo, "01-setup-guide");

  // An OpenAI-compatible key pointing at the fake LLM server.
  await page.getByRole("navigation").getByRole("link", { name: "LLM keys" }).click();
  await expect(page.getByText("No keys yet")).toBeVisible();
  await page.getByRole("button", { name: "Add key" }).click();
  const keyDialog = page.getByRole("dialog", { name: "Add an LLM API key" });
  await keyDialog.getByLabel("Name").fill("Fake LLM");
  await choose(page, /Provider/, /OpenAI-compatible/);
  await keyDialog.getByLabel("Base URL").fill(FAKE_LLM_URL);
  await keyDialog.getByLabel("API key").fill("fake-key-0000");
  await keyDialog.getByRole("button", { name: "Add key" }).click();
  await expect(page.getByRole("cell", { name: "Fake LLM", exact: true })).toBeVisible();
  await snap(page, testInfo, "02-keys");

  // A connector to the built-in pizza bot, tested.
  await page.getByRole("navigation").getByRole("link", { name: "Connectors" }).click();
  await page.getByRole("link", { name: "New connector" }).click();
  await page.getByLabel("Name", { exact: false }).first().fill("Pizza bot");
  await choose(page, /Technology/, "demo");
  await page.getByLabel(/^bot/).fill("pizza");
  await snap(page, testInfo, "03-connector-form");
  await page.getByRole("button", { name: "Create connector" }).click();
  await expect(page.getByRole("heading", { name: "Test the connection" })).toBeVisible();
  await page.getByRole("button", { name: "Test connection" }).click();
  const result = page.getByRole("region", { name: "Connection test result" });
  await expect(result.getByText("Connected")).toBeVisible({ timeout: 30_000 });
  await expect(result.getByText(/Latency/)).toBeVisible();
  await snap(page, testInfo, "04-connector-tested");

  // A project using both.
  await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click();
  await page.getByRole("link", { name: "New project" }).click();
  await page.getByRole("textbox", { name: "Name" }).fill(unique("Pizza project"));
  await choose(page, /Connector/, /Pizza bot/);
  await choose(page, /LLM key/, /Fake LLM/);
  await expect(page.getByRole("button", { name: "Refresh model list" })).toBeVisible({ timeout: 30_000 });
  for (const label of ["Exploration model", "Profile model", "Judge model"]) {
    await page.getByRole("combobox", { name: label }).fill("fake-model");
  }
  await snap(page, testInfo, "05-project-form");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByRole("heading", { name: "Profiles" })).toBeVisible();
  await snap(page, testInfo, "06-test-center-empty");

  // A profile with an error: seen inline, fixed, saved, planned.
  await page.getByRole("link", { name: "New profile" }).first().click();
  await expect(page.getByRole("textbox", { name: "Profile YAML" })).toBeVisible();
  await replaceEditorText(page, profile("zero"));
  const problems = page.getByRole("region", { name: "Problems" });
  await expect(problems).toContainText("steps must be a whole number", { timeout: 15_000 });
  await expect(page.locator(".cm-lintRange-error").first()).toBeVisible();
  await snap(page, testInfo, "07-profile-with-error");
  await replaceEditorText(page, profile("6"));
  await expect(page.getByText("No problems found.")).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(/\/profiles\/\d+$/);
  await expect(page.getByRole("button", { name: "Preview plan" })).toBeEnabled({ timeout: 15_000 });
  await page.getByRole("button", { name: "Preview plan" }).click();
  await expect(page.getByRole("table", { name: "Planned conversations" })).toContainText("large");
  await expect(page.getByText(/conversations?$/).first()).toBeVisible();
  await snap(page, testInfo, "08-profile-plan");

  // TRACER, with live progress.
  await page.getByRole("link", { name: /^← .*test center$/ }).click();
  await expect(page.getByRole("link", { name: "order_a_pizza" })).toBeVisible();
  await page.getByRole("button", { name: "Explore with TRACER" }).first().click();
  const tracer = page.getByRole("dialog", { name: "Explore with TRACER" });
  await tracer.getByLabel("Sessions").fill("1");
  await tracer.getByLabel("Turns per session").fill("2");
  await tracer.getByRole("button", { name: "Start exploring" }).click();
  await expect(tracer.getByRole("status", { name: "Run progress" })).toBeVisible();
  await snap(page, testInfo, "09-tracer-started");
  // Needs the fake LLM server of the e2e stack: the run must get past the queue and write its log.
  await expect(tracer.getByRole("list", { name: "Run log" })).toBeVisible({ timeout: 90_000 });
  await snap(page, testInfo, "10-tracer-progress");
  // The run ends having found the bot's ordering steps, with a link to its report (the "found nothing" warning
  // is journey.spec.ts's).
  await expect(tracer.getByRole("link", { name: "Open the report" })).toBeVisible({ timeout: 120_000 });
  await expect(tracer.getByText("succeeded", { exact: true })).toBeVisible();
  await expect(tracer.getByRole("list", { name: "Run log" })).toContainText("order_drinks");
  await tracer.getByRole("button", { name: "Close (the run goes on)" }).click();
  // The page keeps showing the run (and would list any profiles TRACER wrote under "From TRACER run #…").
  await expect(page.getByRole("status", { name: "Run progress" })).toContainText("Stage: Done");
  await snap(page, testInfo, "11-tracer-finished");
});
