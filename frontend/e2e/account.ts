import { type APIRequestContext, expect, type Page } from "@playwright/test";

/**
 * A fresh account for a browser test: signed up through the real form, and its session's token for the API calls
 * that set up what the test is not about. (The sign-up form itself is the subject of `auth.spec.ts` and the
 * journey.)
 */
export const PASSWORD = "A long and unusual e2e passphrase 42";

export function unique(prefix: string): string {
  return `${prefix}-${String(Date.now())}-${Math.random().toString(36).slice(2, 6)}`;
}

export async function signUp(page: Page, prefix: string): Promise<{ email: string; token: string }> {
  const email = `${unique(prefix)}@example.com`;
  await page.goto("/signup");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("banner").getByText(email)).toBeVisible();
  const token = (await page.evaluate(() => window.sessionStorage.getItem("parley.token"))) ?? "";
  expect(token).toBeTruthy();
  return { email, token };
}

/** POSTs `data` as the account and returns the answer's JSON; any failure fails the test with the answer. */
export async function post<T>(request: APIRequestContext, token: string, url: string, data: unknown): Promise<T> {
  const response = await request.post(url, { headers: { Authorization: `Token ${token}` }, data });
  expect(response.ok(), `POST ${url}: ${await response.text()}`).toBe(true);
  return (await response.json()) as T;
}
