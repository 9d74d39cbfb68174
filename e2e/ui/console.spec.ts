// The browser console stays quiet on every page: no errors, no warnings (a stylesheet
// preloaded and never used, a request refused for the user's role) as a person moves
// through the dashboard as an administrator and as a developer.
import type { ConsoleMessage, Page } from '@playwright/test';
import { expect, signInAsAdmin, signInAsDeveloper, test } from '../helpers';

const ADMIN_PAGES = ['/', '/volumes', '/capacity', '/nodes', '/snapshots', '/settings'];
const DEV_PAGES = ['/', '/claims', '/nodes/vm/disks'];

function collect(page: Page): string[] {
  const noisy: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') noisy.push(`${page.url()}: [${m.type()}] ${m.text()}`);
  });
  return noisy;
}

async function visit(page: Page, paths: string[]): Promise<void> {
  for (const p of paths) {
    await page.goto(p);
    await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    await page.waitForLoadState('networkidle');
    // Chromium warns of a preloaded stylesheet left unused three seconds after the load
    // event: an observation window, not a wait for something to happen.
    await page.waitForTimeout(3_500);
  }
}

test('no console errors or warnings on the main pages, admin and developer', async ({ page }) => {
  const noisy = collect(page);
  await signInAsAdmin(page, '/');
  await visit(page, ADMIN_PAGES);
  expect(noisy).toEqual([]);
});

test('a developer moving through the dashboard sees no console errors or warnings', async ({ page }) => {
  const noisy = collect(page);
  await signInAsDeveloper(page, '/');
  await visit(page, DEV_PAGES);
  expect(noisy).toEqual([]);
});
