import { expect, type Page, test } from "@playwright/test";

/** Every run signs up a new account, so tests never depend on each other or on a clean database. */
function uniqueEmail(): string {
  return `e2e-${String(Date.now())}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

const PASSWORD = "A long and unusual e2e passphrase 42";

async function signUp(page: Page, email: string) {
  await page.goto("/signup");
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
}

async function logIn(page: Page, email: string, password: string) {
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

async function expectAppShell(page: Page, email: string) {
  await expect(page.getByRole("banner").getByText(email)).toBeVisible();
  const navigation = page.getByRole("navigation");
  await expect(navigation.getByRole("link", { name: "Home" })).toBeVisible();
  await expect(navigation.getByRole("link", { name: "Account" })).toBeVisible();
}

test("sign up, log out and log in again", async ({ page }) => {
  const email = uniqueEmail();

  await signUp(page, email);
  await expect(page).toHaveURL(/\/$/);
  await expectAppShell(page, email);
  await expect(page.getByRole("heading", { name: "Welcome to Parley" })).toBeVisible();

  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await logIn(page, email, PASSWORD);
  await expectAppShell(page, email);
});

test("a wrong password shows the server's message", async ({ page }) => {
  const email = uniqueEmail();
  await signUp(page, email);
  await expectAppShell(page, email);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await logIn(page, email, "not the password");

  await expect(page.getByRole("alert")).toContainText("The e-mail or password is incorrect.");
  await expect(page).toHaveURL(/\/login$/);
});

test("a reload keeps the session in the tab, and localStorage holds no token", async ({ page }) => {
  const email = uniqueEmail();
  await signUp(page, email);
  await expectAppShell(page, email);

  await page.getByRole("navigation").getByRole("link", { name: "Account" }).click();
  await expect(page).toHaveURL(/\/account$/);
  await page.reload();
  await expect(page).toHaveURL(/\/account$/);
  await expectAppShell(page, email);
  await expect(page.getByRole("heading", { name: "Account" })).toBeVisible();

  const storage = await page.evaluate(() => ({
    token: window.sessionStorage.getItem("parley.token"),
    local: Object.entries(window.localStorage),
  }));
  expect(storage.token).toBeTruthy();
  const token = storage.token ?? "";
  for (const [key, value] of storage.local) {
    expect(key.toLowerCase()).not.toContain("token");
    expect(value).not.toContain(token);
  }
});

test("keep me signed in: a new page of the same browser is signed in, and logging out there ends it", async ({
  page,
  context,
}) => {
  const email = uniqueEmail();
  await signUp(page, email);
  await expectAppShell(page, email);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();

  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("checkbox", { name: "Keep me signed in" }).check();
  await page.getByRole("button", { name: "Log in" }).click();
  await expectAppShell(page, email);

  // The cookie that remembers the browser is out of scripts' reach and sent to the auth endpoints only.
  const remember = (await context.cookies()).find((cookie) => cookie.name === "parley_remember");
  expect(remember).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/api/auth/" });
  expect(await page.evaluate(() => document.cookie)).not.toContain("parley_remember=");

  const second = await context.newPage();
  await second.goto("/account");
  await expect(second).toHaveURL(/\/account$/);
  await expectAppShell(second, email);
  await expect(second.getByRole("heading", { name: "Account" })).toBeVisible();
  // The new page has a token of its own, in its own sessionStorage; localStorage holds none.
  const read = (tab: Page) =>
    tab.evaluate(() => ({
      token: window.sessionStorage.getItem("parley.token"),
      local: JSON.stringify(Object.entries(window.localStorage)),
    }));
  const [first, other] = await Promise.all([read(page), read(second)]);
  expect(other.token).toBeTruthy();
  expect(other.token).not.toBe(first.token);
  expect(other.local).not.toContain(other.token ?? "");

  // Logging out ends it for the whole browser.
  await second.getByRole("button", { name: "Log out", exact: true }).click();
  await expect(second.getByRole("heading", { name: "Log in" })).toBeVisible();
  const third = await context.newPage();
  await third.goto("/account");
  await expect(third).toHaveURL(/\/login\?next=%2Faccount$/);
  await expect(third.getByRole("heading", { name: "Log in" })).toBeVisible();
});

test("without keep me signed in, a new page of the same browser asks to log in", async ({ page, context }) => {
  const email = uniqueEmail();
  await signUp(page, email);
  await expectAppShell(page, email);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await logIn(page, email, PASSWORD);
  await expectAppShell(page, email);

  const second = await context.newPage();
  await second.goto("/account");

  await expect(second).toHaveURL(/\/login\?next=%2Faccount$/);
  await expect(second.getByRole("heading", { name: "Log in" })).toBeVisible();
  expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain("parley_remember");
  // The first page is still signed in: one-tab sessions are unchanged.
  await page.reload();
  await expectAppShell(page, email);
});
