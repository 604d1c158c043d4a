import { type APIRequestContext, expect, type Page, test, type TestInfo } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { FAKE_LLM_CONTROL, FAKE_LLM_URL, scriptFakeLlm } from "./fake-llm";

/**
 * The whole journey of a new user (Web issue), end to end in the browser against the real stack, without dead
 * ends: the login page's way to the public dashboards; the app's own not-found page; sign-up; a connector URL
 * that is not http(s) refused at save; the setup guide counting a connector only once its test passed; a key; a
 * project refused without its exploration model; a public project's link; a TRACER run that found nothing,
 * followed in the run dialog to its report and shown as a warning, with its unpriced cost shown as such; then a
 * TRACER run that finds the bot's functionalities → its report, graph (and its table) and generated profiles →
 * SENSEI on a generated profile → a conversation with its verdict → a rule written and checked on it → the
 * project's run read anonymously, as a visitor of the public dashboards.
 *
 * The LLM is the e2e stack's fake OpenAI-compatible server, scripted here (`fake-llm.ts`).
 *
 * Each main page on the way gets an accessibility check (axe: no serious or critical violation); the bench and
 * the other public pages get theirs in `dashboards.spec.ts`.
 */
const PASSWORD = "A long and unusual e2e passphrase 42";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

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

/** TRACER's extraction finds nothing, whatever the chatbot says. */
async function scriptNothingFound(request: APIRequestContext) {
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
  const replies = Array.from({ length: 20 }, () => ({ json: { functionalities: [] } }));
  const response = await request.post(`${FAKE_LLM_CONTROL}/_fake/script`, {
    data: { tag: "tracer.extract", replies },
  });
  expect(response.ok()).toBe(true);
}

test.afterAll(async ({ request }) => {
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
});

test("a visitor and a new user never reach a dead end", async ({ page, request }, testInfo) => {
  test.setTimeout(540_000);

  // Logged out: the login page leads to the public dashboards.
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await expectAccessible(page, "the login page");
  await page.getByRole("link", { name: "browse the public dashboards" }).click();
  await expect(page).toHaveURL(/\/public$/);
  await expect(page.getByRole("heading", { name: "Public projects" })).toBeVisible();
  await expectAccessible(page, "the public projects page");

  // An unknown address is the app's own page with a way back; an unknown API path answers JSON.
  await page.goto("/no/such/page");
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to the home page" })).toBeVisible();
  await expectAccessible(page, "the not-found page");
  const api404 = await request.get("/api/no-such-endpoint/");
  expect(api404.status()).toBe(404);
  expect(api404.headers()["content-type"]).toContain("application/json");

  // Sign up.
  await page.goto("/signup");
  await expect(page.getByLabel("Confirm password")).toBeVisible();
  await expectAccessible(page, "the sign-up page");
  await page.getByLabel("E-mail").fill(`${unique("journey")}@example.com`);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("complementary", { name: "Setup progress" })).toContainText("Setup 0/5");
  await expectAccessible(page, "the home page");
  const token = (await page.evaluate(() => window.sessionStorage.getItem("parley.token"))) ?? "";
  const headers = { Authorization: `Token ${token}` };

  // A record that does not exist: a not-found state with a way back, not a dead end.
  await page.goto("/tracer/999999");
  await expect(page.getByRole("heading", { name: "This run does not exist" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the dashboard" }).click();
  await expect(page).toHaveURL(/\/tracer$/);

  // A connector URL that is not http(s) is refused at save, with the reason under the field.
  await page.getByRole("navigation").getByRole("link", { name: "Connectors" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Connectors" })).toBeVisible();
  await expectAccessible(page, "the connectors page");
  await page.getByRole("link", { name: "New connector" }).click();
  await page.getByLabel("Name", { exact: false }).first().fill("FTP bot");
  await choose(page, /Technology/, "taskyto");
  await page.getByLabel(/^base_url/).fill("ftp://bot.example.com");
  await page.getByRole("button", { name: "Create connector" }).click();
  await expect(page.getByText(/must be an http:\/\/ or https:\/\/ URL/).first()).toBeVisible();
  await snap(page, testInfo, "01-connector-ftp-refused");
  await expectAccessible(page, "the connector form with an error");

  // The built-in pizza bot: created, but the setup guide does not count it before a test has passed.
  await page.getByLabel("Name", { exact: false }).first().fill("Pizza bot");
  await choose(page, /Technology/, "demo");
  await page.getByLabel(/^bot/).fill("pizza");
  await page.getByRole("button", { name: "Create connector" }).click();
  await expect(page.getByRole("heading", { name: "Test the connection" })).toBeVisible();
  await page.getByRole("navigation").getByRole("link", { name: "Setup guide" }).click();
  const steps = page.getByRole("list", { name: "Setup steps" });
  await expect(steps).toContainText("Pizza bot has not passed a connection test yet");
  await expectAccessible(page, "the setup guide");
  await snap(page, testInfo, "02-setup-untested-connector");
  await steps.getByRole("link", { name: "Connect your chatbot" }).click();
  await page.getByRole("button", { name: "Test connection" }).click();
  const result = page.getByRole("region", { name: "Connection test result" });
  await expect(result.getByText("Connected")).toBeVisible({ timeout: 30_000 });
  await expectAccessible(page, "the connector test page");
  await page.getByRole("navigation").getByRole("link", { name: "Setup guide" }).click();
  await expect(steps).not.toContainText("has not passed a connection test");
  await expect(steps.getByRole("listitem").filter({ hasText: "Connect your chatbot" })).toContainText("done");

  // A key pointing at the fake LLM (made through the API: the keys screen is another spec's).
  const key = await request.post("/api/keys/", {
    headers,
    data: { name: "Fake LLM", provider: "openai-compatible", base_url: FAKE_LLM_URL, key: "fake-key-0000" },
  });
  expect(key.ok()).toBe(true);
  await page.getByRole("navigation").getByRole("link", { name: "LLM keys" }).click();
  await page.reload(); // the key was made behind the page's back
  await expect(page.getByRole("table").getByText("Fake LLM")).toBeVisible();
  await expectAccessible(page, "the LLM keys page");

  // A project with a key but no exploration model is refused with the field named; a public one shows its link.
  await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click();
  await expectAccessible(page, "the projects page");
  await page.getByRole("link", { name: "New project" }).click();
  await page.getByRole("textbox", { name: "Name" }).fill(unique("Journey"));
  await choose(page, /Connector/, /Pizza bot/);
  await choose(page, /LLM key/, /Fake LLM/);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText(/Choose the exploration model/)).toBeVisible();
  await expectAccessible(page, "the project form with an error");
  const projectName = await page.getByRole("textbox", { name: "Name" }).inputValue();
  await page.getByRole("combobox", { name: /Exploration model/ }).fill("fake-model");
  await page.getByRole("switch", { name: /Public results/ }).check({ force: true });
  await expect(page.getByText(/public link appears here and in the test center/)).toBeVisible();
  await page.getByRole("button", { name: "Create project" }).click();
  const publicCard = page.getByRole("region", { name: "This project is public" });
  await expect(publicCard).toBeVisible();
  const link = publicCard.getByRole("textbox", { name: "Public link" });
  await expect(link).toHaveValue(/\/public\/projects\/\d+$/);
  await publicCard.getByRole("button", { name: "Copy link" }).click();
  await expect(publicCard.getByRole("button", { name: "Copied" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await link.inputValue());
  await snap(page, testInfo, "03-public-link");
  await expectAccessible(page, "the test center");

  // TRACER that finds nothing: a warning in the run dialog, with a link to the report once it has ended.
  await scriptNothingFound(request);
  await page.getByRole("button", { name: "Explore with TRACER" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Explore with TRACER" });
  await dialog.getByLabel("Sessions").fill("1");
  await dialog.getByLabel("Turns per session").fill("2");
  await dialog.getByRole("button", { name: "Start exploring" }).click();
  // "Open the run page" while it goes; a run this short may already have ended ("Open the report").
  await expect(dialog.getByRole("link", { name: /^Open the (run page|report)$/ })).toBeVisible();
  const report = dialog.getByRole("link", { name: "Open the report" });
  await expect(report).toBeVisible({ timeout: 180_000 });
  await expect(dialog.getByText("found nothing", { exact: true })).toBeVisible();
  await expect(dialog.getByRole("alert")).toContainText("TRACER found no functionality");
  await expect(dialog).not.toContainText("$0.0000");
  await expect(dialog.getByText("not priced")).toBeVisible();
  await snap(page, testInfo, "04-tracer-found-nothing-dialog");
  await expectAccessible(page, "the run dialog");
  await report.click();
  await expect(page).toHaveURL(/\/tracer\/\d+$/);
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("alert").filter({ hasText: "TRACER found no functionality" })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText("$0.0000");
  await snap(page, testInfo, "05-tracer-found-nothing-page");
  await expectAccessible(page, "a TRACER run page");

  // TRACER again, now finding the bot's functionalities: the report, the graph and its table, the profiles.
  await scriptFakeLlm(request);
  await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click();
  await page.getByRole("main").getByRole("link", { name: projectName }).first().click();
  await page.getByRole("button", { name: "Explore with TRACER" }).first().click();
  await dialog.getByLabel("Sessions").fill("1");
  await dialog.getByLabel("Turns per session").fill("2");
  await dialog.getByRole("button", { name: "Start exploring" }).click();
  await expect(dialog.getByRole("link", { name: "Open the report" })).toBeVisible({ timeout: 180_000 });
  await expect(dialog.getByText("succeeded", { exact: true }).first()).toBeVisible();
  await dialog.getByRole("link", { name: "Open the report" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Functionalities", { exact: true }).locator("..")).toContainText("5");
  await page.getByRole("tab", { name: "Report" }).click();
  await expect(
    page.getByRole("tabpanel", { name: "Report" }).getByRole("heading", { name: "TRACER report" }),
  ).toBeVisible();
  await page.getByRole("tab", { name: "Graph" }).click();
  await expect(
    page.getByRole("figure", { name: "Workflow graph" }).locator(".react-flow__node-functionality"),
  ).toHaveCount(5);
  await page.getByRole("radiogroup", { name: "Show the workflow as" }).getByText("Table", { exact: true }).click();
  await expect(page.getByRole("table", { name: "Workflow table" }).getByRole("rowheader")).toHaveCount(5);
  await page.getByRole("tab", { name: "Profiles" }).click();
  await expect(page.getByRole("tabpanel", { name: "Profiles" })).toContainText("Pizza orderer");
  await snap(page, testInfo, "06-tracer-profiles");

  // SENSEI on a generated profile, from the test center; a conversation and its verdict.
  await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click();
  await page.getByRole("main").getByRole("link", { name: projectName }).first().click();
  await page
    .getByRole("checkbox", { name: /^Select (?!all)/ })
    .first()
    .check({ force: true });
  await page.getByRole("button", { name: "Run SENSEI" }).click();
  const sensei = page.getByRole("dialog", { name: "Run SENSEI" });
  await sensei.getByRole("button", { name: "Start SENSEI" }).click();
  await expect(sensei.getByRole("link", { name: "Open the report" })).toBeVisible({ timeout: 240_000 });
  await sensei.getByRole("link", { name: "Open the report" }).click();
  await expect(sensei).toBeHidden();
  await expect(page).toHaveURL(/\/sensei\/\d+$/);
  const senseiRun = Number(/\/sensei\/(\d+)$/.exec(page.url())?.[1]);
  const conversations = page.getByRole("table", { name: "Conversations" });
  await expect(conversations.getByRole("columnheader", { name: "Verdict" })).toBeVisible();
  await conversations
    .getByRole("button", { name: /^Read conversation/ })
    .first()
    .click();
  await expect(page.getByRole("dialog").getByRole("list", { name: "Transcript" })).toBeVisible();
  await expect(page.getByRole("dialog").getByRole("region", { name: "Verdict" })).toBeVisible();
  await snap(page, testInfo, "07-sensei-conversation");
  await page.keyboard.press("Escape");

  // A rule written in the editor and checked on the SENSEI run.
  await page.getByRole("navigation").getByRole("link", { name: "Rules" }).click();
  await page.getByRole("combobox", { name: "Project" }).click();
  await page.getByRole("option", { name: projectName }).click();
  await page.getByRole("button", { name: "New rule" }).click();
  await expect(page.getByText("No problems found.")).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Save rule" }).click();
  await expect(page.getByRole("table", { name: "Rules" }).getByRole("switch", { name: /^Active:/ })).toBeChecked();
  await page.getByRole("combobox", { name: "SENSEI runs" }).click();
  await page.getByRole("option", { name: new RegExp(`^#${String(senseiRun)} `) }).click();
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Run checks" }).click();
  await expect(page.getByRole("heading", { name: /^Check run #\d+$/ })).toBeVisible();
  await expect(page.getByRole("button", { name: /checks:/ }).first()).toBeVisible({ timeout: 120_000 });
  await snap(page, testInfo, "08-check-results");

  // The security campaigns page, as a new user first sees it.
  await page.getByRole("navigation").getByRole("link", { name: "Security" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Security" })).toBeVisible();
  await expectAccessible(page, "the security page");

  // Logged out, a visitor reads the project's SENSEI run from the public dashboards, without any action on it.
  await page.getByRole("button", { name: "Log out" }).click();
  await page.getByRole("link", { name: "browse the public dashboards" }).click();
  await page.getByRole("table", { name: "Public projects" }).getByRole("link", { name: projectName }).click();
  await page.getByRole("tab", { name: "SENSEI" }).click();
  await page
    .getByRole("table", { name: "SENSEI runs" })
    .getByRole("link", { name: `#${String(senseiRun)}` })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: `SENSEI run #${String(senseiRun)}` })).toBeVisible();
  await expect(
    page.getByRole("table", { name: "Conversations" }).getByRole("columnheader", { name: "Verdict" }),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete run" })).toHaveCount(0);
  await snap(page, testInfo, "09-public-sensei");
});
