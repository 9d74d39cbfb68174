// Browser tests. The global setup starts one Stowage (embedded Postgres in a temp data
// dir, free ports) for the whole run and stops it afterwards; see e2e/global-setup.ts.
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

// Debian's Chromium where it exists (Playwright cannot download browsers offline);
// elsewhere Playwright's own browser. STOWAGE_E2E_CHROMIUM names another binary.
const chromium = process.env.STOWAGE_E2E_CHROMIUM ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);

export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 45_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : [['list']],
  outputDir: 'test-results',
  use: {
    viewport: { width: 1280, height: 800 },
    // Tracing every test doubles the run time; ask for it with --trace retain-on-failure.
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: chromium
      ? {
          executablePath: chromium,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
            '--no-first-run',
          ],
        }
      : {},
  },
  projects: [{ name: 'ui', testDir: 'e2e/ui' }],
});
