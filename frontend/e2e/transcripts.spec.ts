import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { post, signUp, unique } from "./account";
import { FAKE_LLM_URL, scriptFakeLlm } from "./fake-llm";

/**
 * The Transcripts page on the real stack (issue 38): a production log of about 2.5 MB, with an e-mail address, a
 * phone number, a card number, an IBAN and a name in every conversation, is uploaded from the page in chunks
 * (the progress bar moves chunk by chunk); the masked preview shows placeholders and none of the planted values;
 * TRACER builds the model from the stored conversations (the fake LLM's scripted pizza steps), a simulated user is
 * calibrated (impatient users who leave after two fallbacks), and a fidelity check — one SENSEI run without and
 * one with the calibrated user — draws the chart.
 */
const PLANTED = [
  "lucia.fernandez@example.org",
  "+34 699 111 222",
  "4111 1111 1111 1111",
  "GB82 WEST 1234 5698 7654 32",
];
const NAME = "Lucinda";
const FALLBACK = "Sorry, I didn't understand that. Could you rephrase?";

function productionLog(conversations: number): string {
  const lines: string[] = [];
  for (let i = 0; i < conversations; i++) {
    const turns: [string, string][] = [
      ["bot", "Welcome to the pizza shop! What would you like?"],
      ["user", `hi, my name is ${NAME}, I want to order a pizza`],
      ["bot", `Thanks ${NAME}! Which size would you like: small, medium or large?`],
      ["user", "large please"],
      ["bot", "Which e-mail and phone should we use for the order?"],
      ["user", `${PLANTED[0] ?? ""} and ${PLANTED[1] ?? ""}`],
      ["bot", "How will you pay?"],
      ["user", `card ${PLANTED[2] ?? ""}, refunds to ${PLANTED[3] ?? ""}`],
    ];
    if (i % 3 === 0) {
      // impatient users: two fallbacks in a row and they are gone
      turns.push(["user", "blorp zzz"], ["bot", FALLBACK], ["user", "qwv plonk"], ["bot", FALLBACK]);
    } else {
      turns.push(["bot", "Your order is confirmed. Anything else?"], ["user", "no thanks"]);
    }
    const padding = "x".repeat(300); // a metadata field the import ignores, so the file spans several chunks
    lines.push(
      JSON.stringify({ id: `chat-${String(i)}`, meta: padding, turns: turns.map(([role, text]) => ({ role, text })) }),
    );
  }
  return lines.join("\n") + "\n";
}

test("upload masked transcripts, build the model, calibrate and compare simulated with real users", async ({
  page,
  request,
}) => {
  test.setTimeout(300_000);
  await scriptFakeLlm(request);
  const { token } = await signUp(page, "transcripts");
  const key = await post<{ id: number }>(request, token, "/api/keys/", {
    name: "Fake LLM",
    provider: "openai-compatible",
    base_url: FAKE_LLM_URL,
    key: "fake-key-0000",
  });
  const bot = await post<{ id: number }>(request, token, "/api/connectors/", {
    name: unique("pizza"),
    technology: "demo",
    params: { bot: "pizza" },
  });
  const project = await post<{ id: number }>(request, token, "/api/projects/", {
    name: unique("Transcripts"),
    connector: bot.id,
    llm_key: key.id,
    exploration_model: "fake-model",
    profile_model: "fake-model",
    judge_model: "fake-model",
  });

  const folder = mkdtempSync(join(tmpdir(), "parley-transcripts-"));
  const file = join(folder, "production.jsonl");
  writeFileSync(file, productionLog(2400));

  await page.goto(`/projects/${String(project.id)}`);
  await page.getByRole("link", { name: "Transcripts" }).click();
  await expect(page.getByRole("heading", { name: "Transcripts", level: 1 })).toBeVisible();

  // Upload: the bar moves chunk by chunk, then the whole file is in.
  // The test center's own drop zone (profiles, YAML) may still be in the page for a moment: take this page's.
  await page.getByRole("region", { name: "Upload transcripts" }).getByTestId("file-input").setInputFiles(file);
  const bar = page.getByRole("progressbar", { name: "Upload progress" });
  await expect(bar).toBeVisible({ timeout: 30_000 });
  const seen = new Set<string>();
  await expect(async () => {
    seen.add((await bar.getAttribute("aria-valuenow")) ?? "");
    expect(await bar.getAttribute("aria-valuenow")).toBe("100");
  }).toPass({ timeout: 120_000, intervals: [100] });
  expect([...seen].some((value) => value !== "100" && value !== "")).toBe(true); // progress before the end
  await expect(page.getByText("2400 conversations imported · done")).toBeVisible({ timeout: 30_000 });

  // The masked preview: placeholders, and none of what was planted.
  const sample = page.getByTestId("masked-conversation").first();
  await expect(sample).toContainText("[NAME_1]");
  await expect(sample).toContainText("[EMAIL_1]");
  await expect(sample).toContainText("[CARD_1]");
  await expect(sample).toContainText("[IBAN_1]");
  await expect(sample).toContainText("[PHONE_1]");
  const body = page.locator("main");
  for (const value of [...PLANTED, NAME]) await expect(body).not.toContainText(value);
  await expect(page.getByRole("table", { name: "Measures of real users" })).toContainText(
    "Fallbacks in a row before leaving",
  );

  // The model from transcripts: a TRACER run that never talks to the chatbot.
  await page.getByLabel("Conversations to read").fill("8");
  await page.getByRole("button", { name: "Build the model from transcripts" }).click();
  await expect(page.getByText(/Model from transcripts: succeeded/)).toBeVisible({ timeout: 120_000 });
  await expect(page.getByText(/functionalities and \d+ valid profiles from 8 conversations/)).toBeVisible();

  // Calibrate: the impatient third of the users left after two fallbacks.
  await page.getByRole("button", { name: "Calibrate a simulated user" }).click();
  await expect(page.getByText(/calibrated from 2400 conversations: leaves after 2 fallbacks in a row/)).toBeVisible({
    timeout: 90_000,
  });

  // The fidelity check: two SENSEI runs, then the chart compares them with the real users.
  await page.getByRole("button", { name: "Check fidelity" }).click();
  await expect(page.getByText(/^Simulated users: succeeded/)).toBeVisible({ timeout: 150_000 });
  await expect(page.getByText(/^Calibrated simulated users: succeeded/)).toBeVisible({ timeout: 150_000 });
  const chart = page.getByRole("figure", { name: "Fidelity report" });
  await expect(chart).toContainText(/The calibrated user is (not )?closer to the real users/, { timeout: 20_000 });
  await expect(chart.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(chart).toContainText("Gap after calibration");
  for (const value of [...PLANTED, NAME]) await expect(body).not.toContainText(value);
});
