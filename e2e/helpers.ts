// Shared pieces of the UI tests: the base URL of the Stowage the global setup started,
// signing in, the YAML editor, unique names, manifests and screenshots.
import path from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { stringify } from 'yaml';
import { getObject, type Obj } from './api';
import { DEV_USER, e2eEnv, SESSION_COOKIE } from './env';

export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this destructuring; this one has none
  baseURL: async ({}, use) => {
    await use(e2eEnv('url'));
  },
});
export { expect };

let counter = 0;
/** A DNS-1123 name no other test (or earlier run) uses. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}${counter}${Math.floor(Math.random() * 1296).toString(36)}`.toLowerCase();
}

export async function signIn(page: Page, name: string, password: string, startAt = '/'): Promise<void> {
  await page.goto(startAt);
  await expect(page).toHaveURL(/\/login/);
  await page.getByRole('textbox', { name: 'User name' }).fill(name);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('user-name')).toHaveText(name);
}

export function signInAsAdminByForm(page: Page, startAt?: string): Promise<void> {
  return signIn(page, 'admin', e2eEnv('adminPassword'), startAt);
}

/** Opens a page as the admin, with the session the global setup signed in once. */
export async function signInAsAdmin(page: Page, startAt = '/'): Promise<void> {
  await page.context().addCookies([{ name: SESSION_COOKIE, value: e2eEnv('adminSession'), url: e2eEnv('url') }]);
  await page.goto(startAt);
  await expect(page.getByTestId('user-name')).toHaveText('admin');
}

export function signInAsDeveloper(page: Page, startAt?: string): Promise<void> {
  return signIn(page, DEV_USER.name, DEV_USER.password, startAt);
}

/** Replaces the whole text of a YAML editor, as a person pasting would. */
export async function setEditorText(page: Page, text: string, testId = 'yaml-editor'): Promise<void> {
  const content = page.getByTestId(testId).locator('.cm-content');
  await content.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Opens "Create from YAML", pastes the manifest and presses Create. */
export async function fillCreateForm(page: Page, manifest: string, kind = 'PersistentVolume'): Promise<void> {
  await page.goto(`/new?kind=${kind}`);
  await expect(page.getByTestId('yaml-editor').locator('.cm-content')).toBeVisible();
  await setEditorText(page, manifest);
  await page.getByRole('button', { name: 'Create', exact: true }).click();
}

export function pvManifest(name: string, extra: { labels?: Record<string, string>; storage?: string; finalizers?: string[]; storageClassName?: string } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: extra.labels ?? { e2e: 'true' }, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
    spec: {
      capacity: { storage: extra.storage ?? '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      // A class of its own by default, so that no other test's Pending claim binds it.
      storageClassName: extra.storageClassName ?? `static-${name}`,
      hostPath: { path: `/tmp/stowage-e2e/${name}` },
    },
  };
}

export function pvcManifest(name: string, namespace: string, storage = '1Gi', storageClassName = 'manual') {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName },
  };
}

/**
 * A volume once the controllers have settled it (Available, with the PV protection
 * finalizer), so that a test editing it does not race them.
 */
export async function settledVolume(name: string): Promise<Obj> {
  let pv: Obj | undefined;
  await expect
    .poll(
      async () => {
        const read = await getObject('PersistentVolume', name);
        pv = read;
        const status = read.status as { phase?: string } | undefined;
        return status?.phase === 'Available' && ((read.metadata.finalizers as string[] | undefined) ?? []).includes('kubernetes.io/pv-protection');
      },
      { message: `volume ${name} becomes Available and protected`, timeout: 15_000 },
    )
    .toBe(true);
  return pv!;
}

export function toYaml(obj: object): string {
  return stringify(obj);
}

/**
 * A picture for the README, taken only when asked (`npm run screenshots` sets
 * STOWAGE_SCREENSHOTS=1), so that `npm test` leaves the working tree clean.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.STOWAGE_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: path.join(import.meta.dirname, '..', 'docs', 'screenshots', `${name}.png`) });
}

/** The same picture in the light and the dark theme (`NAME-light.png`, `NAME-dark.png`), when asked. */
export async function screenshotThemes(page: Page, name: string): Promise<void> {
  if (process.env.STOWAGE_SCREENSHOTS !== '1') return;
  // No tooltip of whatever the pointer last touched.
  await page.mouse.move(0, 0);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', scheme);
    await screenshot(page, `${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
