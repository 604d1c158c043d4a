import { type APIRequestContext, expect, type Page, test, type TestInfo } from "@playwright/test";
import { expectAccessible } from "./a11y";
import { signUp, unique } from "./account";
import { FAKE_LLM_CONTROL, FAKE_LLM_URL, scriptFakeLlm } from "./fake-llm";

/**
 * The dashboards against the real stack (nginx, gunicorn, Celery, PostgreSQL, RabbitMQ, the fake OpenAI-compatible
 * LLM server and the built-in pizza bot): a TRACER run completes → its graph (a node clicked) and report → a
 * generated profile edited → SENSEI on it → a conversation and the charts → a rule added, toggled and checked →
 * a small evaluation bench on the same built-in bot and its report → the project made public → logged out, the
 * public dashboards browsed.
 *
 * Set-up screens of the workspace (key, connector, project) are driven by `workspace.spec.ts`; here they are made
 * through the API so that this test is about the dashboards. Each screen is saved as a screenshot and gets an
 * accessibility check (axe: no serious or critical violation).
 */

test.afterAll(async ({ request }) => {
  // Later tests get the fake server's default answers again.
  await request.post(`${FAKE_LLM_CONTROL}/_fake/reset`);
});

async function snap(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

/** A small JSON API client with the browser session's token. */
function apiClient(request: APIRequestContext, token: string) {
  const headers = { Authorization: `Token ${token}` };
  async function call<T>(method: "get" | "post" | "patch", url: string, data?: unknown): Promise<T> {
    const response = await request[method](url, { headers, data });
    expect(response.ok(), `${method.toUpperCase()} ${url}: ${await response.text()}`).toBe(true);
    return (await response.json()) as T;
  }
  return {
    get: <T>(url: string) => call<T>("get", url),
    post: <T>(url: string, data: unknown) => call<T>("post", url, data),
    patch: <T>(url: string, data: unknown) => call<T>("patch", url, data),
  };
}

test("TRACER, SENSEI, rules, bench and public dashboards on a live stack", async ({ page, request }, testInfo) => {
  test.setTimeout(600_000);
  await scriptFakeLlm(request);

  // Sign up in the browser; the API calls below use the same session.
  const { email, token } = await signUp(page, "dashboards");
  const api = apiClient(request, token);

  // Key → connector → project.
  const key = await api.post<{ id: number }>("/api/keys/", {
    name: "Fake LLM",
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const connector = await api.post<{ id: number }>("/api/connectors/", {
    name: "Pizza bot",
    technology: "demo",
    params: { bot: "pizza" },
  });
  const projectName = unique("Pizza dashboards");
  const project = await api.post<{ id: number }>("/api/projects/", {
    name: projectName,
    connector: connector.id,
    llm_key: key.id,
    exploration_model: "fake-model",
    profile_model: "fake-model",
    judge_model: "fake-model",
  });

  // TRACER: 2 sessions × 3 turns, followed live on the dashboard until it completes.
  const tracer = await api.post<{ id: number }>(`/api/projects/${String(project.id)}/runs/`, {
    kind: "tracer",
    sessions: 2,
    turns: 3,
  });
  await page.getByRole("navigation").getByRole("link", { name: "TRACER" }).click();
  const tracerTable = page.getByRole("table", { name: "TRACER runs" });
  await expect(tracerTable.getByRole("link", { name: `#${String(tracer.id)}` })).toBeVisible();
  await expect(tracerTable).toContainText("2 × 3");
  await snap(page, testInfo, "01-tracer-dashboard");
  await expectAccessible(page, "the TRACER dashboard");
  await tracerTable.getByRole("link", { name: `#${String(tracer.id)}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: `TRACER run #${String(tracer.id)}` })).toBeVisible();
  await snap(page, testInfo, "02-tracer-run");
  await expect(page.getByText("succeeded").first()).toBeVisible({ timeout: 240_000 });
  await expect(page.getByText("Functionalities", { exact: true }).locator("..")).toContainText("5");
  // The log, read once the run has finished.
  await page.getByRole("tab", { name: "Log" }).click();
  await expect(page.getByRole("list", { name: "Run log" })).toBeVisible();

  // The report, rendered from Markdown.
  await page.getByRole("tab", { name: "Report" }).click();
  const report = page.getByRole("tabpanel", { name: "Report" });
  await expect(report.getByRole("heading", { name: "TRACER report" })).toBeVisible();
  await expect(report.getByRole("heading", { name: "Functionalities by category" })).toBeVisible();
  await snap(page, testInfo, "03-tracer-report");
  await expectAccessible(page, "a TRACER report");

  // The graph: categories as groups; a click on a functionality shows its details.
  await page.getByRole("tab", { name: "Graph" }).click();
  const graph = page.getByRole("figure", { name: "Workflow graph" });
  await expect(graph.locator(".react-flow__node-functionality").first()).toBeVisible();
  await expect(graph.locator(".react-flow__node-category")).toHaveCount(2);
  await expect(graph.getByText("join", { exact: true })).toBeVisible();
  // One edge from the start node, and one per parent: the join has two.
  await expect(graph.locator(".react-flow__edge")).toHaveCount(6);
  // Every node fits in view on first sight.
  const frame = await graph.boundingBox();
  if (frame === null) throw new Error("the graph has no box");
  await expect
    .poll(async () => {
      const boxes = await Promise.all(
        (await graph.locator(".react-flow__node").all()).map((node) => node.boundingBox()),
      );
      return boxes.every(
        (box) =>
          box !== null &&
          box.x >= frame.x - 1 &&
          box.y >= frame.y - 1 &&
          box.x + box.width <= frame.x + frame.width + 1 &&
          box.y + box.height <= frame.y + frame.height + 1,
      );
    })
    .toBe(true);
  // From the keyboard: Tab reaches a functionality, Enter opens its details, the arrows move along the graph.
  const focusedNode = () =>
    page.evaluate(() => document.activeElement?.closest(".react-flow__node-functionality")?.getAttribute("aria-label"));
  await page.getByRole("tab", { name: "Graph" }).focus();
  for (let presses = 0; presses < 15 && !(await focusedNode()); presses++) await page.keyboard.press("Tab");
  expect(await focusedNode()).toMatch(/^Functionality /);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("region", { name: "Functionality details" })).toBeVisible();
  const first = await focusedNode();
  await page.keyboard.press("ArrowRight");
  await expect.poll(focusedNode).not.toBe(first);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("region", { name: "Functionality details" })).toHaveCount(0);
  await graph.getByText("Build custom pizza", { exact: true }).click();
  const details = page.getByRole("region", { name: "Functionality details" });
  await expect(details).toBeVisible();
  await expect(details.getByRole("cell", { name: /toppings/ })).toBeVisible();
  await expect(details.getByText("olives", { exact: true })).toBeVisible();
  await snap(page, testInfo, "04-tracer-graph");
  await expectAccessible(page, "a TRACER graph");

  // The same model as a table: every functionality with its parameters and options, outputs and links.
  const showAs = page.getByRole("radiogroup", { name: "Show the workflow as" });
  await showAs.getByText("Table", { exact: true }).click();
  const modelTable = page.getByRole("table", { name: "Workflow table" });
  await expect(modelTable.getByRole("rowheader")).toHaveCount(5);
  const drinks = modelTable.getByRole("row").filter({ has: page.getByRole("rowheader", { name: /Order drinks/ }) });
  await expect(drinks).toContainText("join");
  await expect(drinks).toContainText("drink: coke, lemonade, water");
  await expect(drinks).toContainText("price (the total price of the order)");
  await expect(drinks).toContainText("Choose house pizza");
  await expect(drinks).toContainText("Build custom pizza");
  await expect(page.getByRole("figure", { name: "Workflow graph" })).toHaveCount(0);
  await snap(page, testInfo, "04b-tracer-model-table");
  await expectAccessible(page, "a TRACER model table");
  await showAs.getByText("Graph", { exact: true }).click();
  await expect(page.getByRole("figure", { name: "Workflow graph" })).toBeVisible();

  // The exploration sessions, as chat logs.
  await page.getByRole("tab", { name: "Conversations" }).click();
  await expect(page.getByRole("list", { name: /Session/ }).first()).toBeVisible();
  await snap(page, testInfo, "05-tracer-sessions");

  // A generated profile, edited in the test center (saved as the user's own copy).
  await page.getByRole("tab", { name: "Profiles" }).click();
  await page.getByRole("button", { name: /valid/ }).first().click();
  await snap(page, testInfo, "06-tracer-profiles");
  await expectAccessible(page, "a TRACER run's profiles");
  await page
    .getByRole("link", { name: /^Open .* in the editor$/ })
    .first()
    .click();
  const editor = page.getByRole("textbox", { name: "Profile YAML" });
  await expect(editor).toBeVisible();
  await editor.click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.insertText("\n# Checked by the dashboards e2e test.\n");
  await expect(page.getByText("No problems found.")).toBeVisible({ timeout: 15_000 });
  await expectAccessible(page, "the profile editor");
  const editorUrl = page.url();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page).not.toHaveURL(editorUrl);
  await expect(page).toHaveURL(/\/profiles\/\d+$/);
  const profileId = Number(/\/profiles\/(\d+)$/.exec(page.url())?.[1]);
  await snap(page, testInfo, "07-profile-edited");

  // SENSEI on the edited profile, followed on the dashboard.
  const sensei = await api.post<{ id: number }>(`/api/projects/${String(project.id)}/runs/`, {
    kind: "sensei",
    profiles: [profileId],
    concurrency: 2,
    seed: 7,
  });
  await page.getByRole("navigation").getByRole("link", { name: "SENSEI" }).click();
  const senseiTable = page.getByRole("table", { name: "SENSEI runs" });
  await expect(senseiTable.getByRole("link", { name: `#${String(sensei.id)}` })).toBeVisible();
  await snap(page, testInfo, "08-sensei-dashboard");
  await expectAccessible(page, "the SENSEI dashboard");
  await senseiTable.getByRole("link", { name: `#${String(sensei.id)}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: `SENSEI run #${String(sensei.id)}` })).toBeVisible();
  await expect(page.getByText("succeeded").first()).toBeVisible({ timeout: 240_000 });

  // Charts, per-profile results and a conversation's transcript.
  await expect(page.getByRole("figure", { name: "Errors by type" })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Response times" })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Cost per profile" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Results per profile" })).toBeVisible();
  // Verdicts where users look: each conversation's, a filter by verdict, and the counts in the runs table.
  const conversationRows = page.getByRole("table", { name: "Conversations" });
  await expect(conversationRows.getByRole("columnheader", { name: "Verdict" })).toBeVisible();
  const shown = await conversationRows.getByRole("row").count();
  const passedRows = await conversationRows
    .getByRole("row")
    .filter({ hasText: /\bpassed\b/ })
    .count();
  await page.getByRole("combobox", { name: "Verdict" }).click();
  await page.getByRole("option", { name: "passed", exact: true }).click();
  await expect(conversationRows.getByRole("row")).toHaveCount(passedRows > 0 ? passedRows + 1 : 2);
  await page.getByRole("combobox", { name: "Verdict" }).click();
  await page.getByRole("option", { name: "passed", exact: true }).click(); // a second pick clears the filter
  await expect(conversationRows.getByRole("row")).toHaveCount(shown);
  await snap(page, testInfo, "09-sensei-run");
  await expectAccessible(page, "a SENSEI run page");
  await page
    .getByRole("table", { name: "Conversations" })
    .getByRole("button", { name: /^Read conversation/ })
    .first()
    .click();
  const conversation = page.getByRole("dialog");
  await expect(conversation.getByRole("list", { name: "Transcript" })).toBeVisible();
  await expect(conversation.getByRole("table", { name: "Variable values" })).toBeVisible();
  await snap(page, testInfo, "10-sensei-conversation");
  await expectAccessible(page, "a SENSEI conversation");
  await page.keyboard.press("Escape");

  // A rule: written in the editor from the template, deactivated and reactivated, checked on the SENSEI run;
  // with it, one that fails on every conversation (made through the API), to open a failing conversation.
  await api.post(`/api/projects/${String(project.id)}/rules/`, {
    text: "name: always_fails\ndescription: no conversation is that long\nthen: len(chatbot_phrases) > 1000\n",
  });
  await page.getByRole("navigation").getByRole("link", { name: "Rules" }).click();
  await page.getByRole("combobox", { name: "Project" }).click();
  await page.getByRole("option", { name: projectName }).click();
  await page.getByRole("button", { name: "New rule" }).click();
  await expect(page.getByRole("textbox", { name: "Rule YAML" })).toContainText("name:");
  await expect(page.getByText("No problems found.")).toBeVisible({ timeout: 15_000 });
  await snap(page, testInfo, "11-rule-editor");
  await expectAccessible(page, "the rule editor");
  await page.getByRole("button", { name: "Save rule" }).click();
  const rules = page.getByRole("table", { name: "Rules" });
  const active = rules.getByRole("switch", { name: /^Active:/ }).first();
  await expect(active).toBeChecked();
  await active.click({ force: true });
  await expect(active).not.toBeChecked();
  await active.click({ force: true });
  await expect(active).toBeChecked();
  await page.getByRole("combobox", { name: "SENSEI runs" }).click();
  await page.getByRole("option", { name: new RegExp(`^#${String(sensei.id)} `) }).click();
  await page.keyboard.press("Escape");
  await snap(page, testInfo, "12-rules");
  await expectAccessible(page, "the rules page");
  await page.getByRole("button", { name: "Run checks" }).click();
  await expect(page.getByRole("heading", { name: /^Check run #\d+$/ })).toBeVisible();
  await expect(page.getByText("Results per rule")).toBeVisible();
  await expect(page.getByRole("button", { name: /checks:/ }).first()).toBeVisible({ timeout: 120_000 });
  await page
    .getByRole("button", { name: /checks:/ })
    .first()
    .click();
  await snap(page, testInfo, "13-check-results");
  await expectAccessible(page, "check results");
  // A failing check's conversation opens in one click.
  const failingRule = page.getByRole("button", { name: /always_fails/ });
  if ((await failingRule.getAttribute("aria-expanded")) !== "true") await failingRule.click();
  await page
    .getByRole("button", { name: /^Open conversation / })
    .first()
    .click();
  const failing = page.getByRole("dialog");
  await expect(failing.getByRole("list", { name: "Transcript" })).toBeVisible();
  await snap(page, testInfo, "13b-failing-conversation");
  await page.keyboard.press("Escape");

  // The evaluation bench on the same built-in bot, as small as it gets, started from its form; its TRACER gets the
  // script from the start.
  await scriptFakeLlm(request);
  await page.getByRole("navigation").getByRole("link", { name: "Bench" }).click();
  await page.getByRole("button", { name: "Start a bench" }).first().click();
  const benchForm = page.getByRole("dialog", { name: "Start a bench" });
  await expect(benchForm.getByRole("combobox", { name: "Project" })).toHaveValue(`${projectName} — pizza`);
  await benchForm.getByRole("textbox", { name: "TRACER sessions" }).fill("1");
  await benchForm.getByRole("textbox", { name: "Turns per session" }).fill("2");
  await benchForm.getByRole("textbox", { name: "Repeats" }).fill("1");
  await benchForm.getByRole("textbox", { name: "Mutants per operator" }).fill("1");
  await benchForm.getByRole("combobox", { name: "Mutation operators" }).click();
  await page.getByRole("option", { name: "wrong-price-formula" }).click();
  await benchForm.getByRole("heading", { name: "Start a bench" }).click(); // closes the options
  await benchForm.getByRole("textbox", { name: "Parallel conversations" }).fill("2");
  await benchForm.getByRole("textbox", { name: "Seed" }).fill("3");
  await snap(page, testInfo, "14-bench-start");
  await expectAccessible(page, "the bench form");
  await benchForm.getByRole("button", { name: "Start the bench" }).click();
  await expect(page).toHaveURL(/\/bench\/\d+$/);
  const bench = { id: Number(/\/bench\/(\d+)$/.exec(page.url())?.[1]) };
  await expect(page.getByRole("heading", { level: 1, name: `Bench run #${String(bench.id)}` })).toBeVisible();
  await expect(page.getByText("succeeded").first()).toBeVisible({ timeout: 180_000 });
  await expect(page.getByRole("group", { name: "Mutation score", exact: true })).toBeVisible();
  await expect(page.getByRole("group", { name: "Mutation score, automatic" })).toBeVisible();
  await expect(page.getByLabel("Measured with")).toContainText("model fake-model");
  await expect(page.getByRole("table", { name: "Kills per operator" })).toContainText("wrong-price-formula");
  await snap(page, testInfo, "15-bench-figures");
  await expectAccessible(page, "a bench run");
  await page.getByRole("tab", { name: "Mutants" }).click();
  await expect(
    page.getByRole("table", { name: "Mutants", exact: true }).getByText("wrong-price-formula-", { exact: false }),
  ).toBeVisible();
  await snap(page, testInfo, "16-bench-mutants");
  await page.getByRole("tab", { name: "Report" }).click();
  await expect(
    page.getByRole("tabpanel", { name: "Report" }).getByRole("heading", { name: "Parley bench" }),
  ).toBeVisible();
  await snap(page, testInfo, "17-bench-report");

  // Public: the owner shares the project, logs out, and browses it as a visitor.
  await api.patch(`/api/projects/${String(project.id)}/`, { public: true });
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await page.goto("/public");
  const projects = page.getByRole("table", { name: "Public projects" });
  await expect(projects.getByRole("link", { name: projectName })).toBeVisible();
  await expect(projects).not.toContainText(email);
  await snap(page, testInfo, "18-public-projects");
  await expectAccessible(page, "the public projects, anonymously");
  await projects.getByRole("link", { name: projectName }).click();
  await expect(page.getByRole("heading", { name: projectName })).toBeVisible();
  await page
    .getByRole("table", { name: "TRACER runs" })
    .getByRole("link", { name: `#${String(tracer.id)}` })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: `TRACER run #${String(tracer.id)}` })).toBeVisible();
  await expect(page.getByText("A public project's run: read-only.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete run" })).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText(email);
  await page.getByRole("tab", { name: "Graph" }).click();
  await expect(page.getByRole("figure", { name: "Workflow graph" })).toBeVisible();
  await snap(page, testInfo, "19-public-tracer");
  await expectAccessible(page, "a public TRACER run, anonymously");

  await page.getByRole("main").getByRole("link", { name: projectName }).click();
  await page.getByRole("tab", { name: "SENSEI" }).click();
  await page
    .getByRole("table", { name: "SENSEI runs" })
    .getByRole("link", { name: `#${String(sensei.id)}` })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: `SENSEI run #${String(sensei.id)}` })).toBeVisible();
  await expect(page.getByRole("figure", { name: "Errors by type" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete run" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Check rules" })).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText(email);
  await snap(page, testInfo, "20-public-sensei");
  await expectAccessible(page, "a public SENSEI run, anonymously");

  await page.getByRole("main").getByRole("link", { name: projectName }).click();
  await page.getByRole("tab", { name: "Bench" }).click();
  await page
    .getByRole("table", { name: "Bench runs" })
    .getByRole("link", { name: `#${String(bench.id)}` })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: `Bench run #${String(bench.id)}` })).toBeVisible();
  await expect(page.getByRole("group", { name: "Mutation score", exact: true })).toBeVisible();
  await expect(page.getByRole("group", { name: "Mutation score, automatic" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Delete run" })).toHaveCount(0);
  await expect(page.getByRole("main")).not.toContainText(email);
  await snap(page, testInfo, "21-public-bench");
  await expectAccessible(page, "a public bench run, anonymously");
});
