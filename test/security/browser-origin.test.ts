// The dashboard's CSRF check as a real browser meets it: a page of the dashboard (by its
// address or as localhost) signs in with the Origin the browser sends; a page on another
// name that resolves to the dashboard (DNS rebinding: its Host header matches its Origin)
// is refused. Needs a Chromium (Debian's, or STOWAGE_E2E_CHROMIUM); skips with a printed
// reason without one.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import { startWebServer, type WebServer } from '../../server/http/web-server';
import { openTestApp } from '../app';

const executable = process.env.STOWAGE_E2E_CHROMIUM ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
if (!executable) console.log('skipping the browser Origin test: no Chromium (set STOWAGE_E2E_CHROMIUM)');

let app: AppContext & { url: string };
let web: WebServer;
let browser: Browser;

beforeAll(async () => {
  if (!executable) return;
  app = await openTestApp();
  await app.users.create({ name: 'erin', role: 'viewer', password: 'erin-password' });
  web = await startWebServer({ app, host: '127.0.0.1', port: 0, dir: '.', pages: false });
  browser = await chromium.launch({
    executablePath: executable,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--host-resolver-rules=MAP rebound.example 127.0.0.1'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await web?.close();
  await app?.close();
});

test.skipIf(!executable)('a dashboard page signs in by its address or as localhost; a rebound name is refused (403)', async () => {
  const port = new URL(web.url).port;
  const statusFrom = async (origin: string): Promise<number> => {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/livez`);
      return await page.evaluate(async () => {
        const body = JSON.stringify({ name: 'erin', password: 'erin-password' });
        return (await fetch('/api/trpc/auth.signIn', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
      });
    } finally {
      await page.close();
    }
  };
  expect(await statusFrom(`http://127.0.0.1:${port}`)).toBe(200);
  expect(await statusFrom(`http://localhost:${port}`)).toBe(200);
  expect(await statusFrom(`http://rebound.example:${port}`)).toBe(403);
});
