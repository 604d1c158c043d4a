import { defineConfig, devices } from "@playwright/test";

/**
 * Browser tests against the real stack (nginx + gunicorn + Celery + PostgreSQL).
 *
 * PARLEY_E2E_URL points at a running stack. Without it, Playwright starts one with `make -C .. e2e-stack`
 * (nginx on 8091 serving frontend/dist) and stops it afterwards.
 * Browsers cannot be downloaded here, so the system Chromium is used (PARLEY_CHROMIUM overrides the path).
 */
const externalUrl = process.env.PARLEY_E2E_URL;
const baseURL = externalUrl ?? "http://127.0.0.1:8091";

export default defineConfig({
  testDir: "./e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: "list",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: {
          executablePath: process.env.PARLEY_CHROMIUM ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
            "--disable-quic",
          ],
        },
      },
    },
  ],
  ...(externalUrl === undefined && {
    webServer: {
      command: "make -C .. e2e-stack",
      url: "http://127.0.0.1:8091/api/health/",
      timeout: 240_000,
      reuseExistingServer: false,
      // SIGTERM lets the launcher (honcho) stop gunicorn, Celery and nginx, which run in their own sessions;
      // a SIGKILL would orphan them.
      gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
      stdout: "pipe",
      stderr: "pipe",
    },
  }),
});
