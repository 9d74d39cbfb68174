// The command palette and the keyboard shortcuts, used with the keyboard only: finding
// objects by name (only those the user may read), running actions, the shortcuts, and
// an axe scan of the open palette in both themes.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { createObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, pvManifest, screenshot, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });
const search = (page: Page) => page.getByRole('combobox', { name: 'Command palette search' });
const options = (page: Page) => palette(page).getByRole('option');

async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('Ctrl+K finds a volume by name and opens it; arrows, Escape and focus return; g c, / and ?', async ({ page }) => {
  const name = uniqueName('palette-pv');
  await createObject(pvManifest(name));
  await createObject(pvManifest(`${name}-twin`));
  await signInAsAdmin(page, '/volumes');
  await expect(page.getByRole('heading', { level: 1, name: 'Volumes' })).toBeVisible();

  // Escape closes the palette and focus goes back to where it was.
  const filter = page.getByRole('textbox', { name: 'Filter by text' });
  // The shortcuts listen once the page has hydrated: press until it answers.
  await expect(async () => {
    await page.keyboard.press('/');
    await expect(filter).toBeFocused({ timeout: 500 });
  }).toPass();
  await page.keyboard.press('Control+K');
  await expect(palette(page)).toBeVisible();
  await expect(search(page)).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(palette(page)).toHaveCount(0);
  await expect(filter).toBeFocused();

  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type(name);
  // The exact name first, then its twin; the first option is the active one.
  await expect(options(page).nth(0)).toContainText(name);
  await expect(options(page).nth(1)).toContainText(`${name}-twin`);
  await expect(options(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await expect(search(page)).toHaveAttribute('aria-activedescendant', (await options(page).nth(0).getAttribute('id')) ?? 'none');
  await page.keyboard.press('ArrowDown');
  await expect(options(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(options(page).nth(0)).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('ArrowUp');
  await expect(options(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/volumes/${name}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  await expect(palette(page)).toHaveCount(0);

  await page.keyboard.press('g');
  await page.keyboard.press('c');
  await expect(page).toHaveURL(/\/claims$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Claims' })).toBeVisible();

  await expect(async () => {
    await page.keyboard.press('/');
    await expect(page.getByRole('textbox', { name: 'Filter by text' })).toBeFocused({ timeout: 500 });
  }).toPass();
  // Typing in a field does not trigger shortcuts.
  await page.keyboard.type('gv');
  await expect(page.getByRole('textbox', { name: 'Filter by text' })).toHaveValue('gv');
  await expect(page).toHaveURL(/\/claims/);
  await page.keyboard.press('Shift+Tab');

  await page.keyboard.press('Shift+?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help).toContainText('Focus the list filter');
  await expect(help).toContainText('Go to Volumes');
  await page.keyboard.press('Escape');
  await expect(help).toHaveCount(0);
});

test('palette actions: switch the theme, create a volume; the open palette passes axe in both themes', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await signInAsAdmin(page, '/');
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');

  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type('dark');
  await expect(options(page).first()).toContainText('Switch to the dark theme');
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'dark');

  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type('create vol');
  await expect(options(page).first()).toContainText('Create volume');
  await screenshot(page, 'palette');
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/new\/volume/);

  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type('light theme');
  await page.keyboard.press('Enter');
  await expect(html).toHaveAttribute('data-mantine-color-scheme', 'light');
});

test('a developer finds only what they may read, and signs out from the palette', async ({ page }) => {
  const prefix = uniqueName('palsecret');
  await createObject(pvcManifest(`${prefix}-mine`, DEV_USER.namespace), DEV_USER.namespace);
  await createObject(pvcManifest(`${prefix}-theirs`, DEV_USER.otherNamespace), DEV_USER.otherNamespace);
  await createObject(pvManifest(`${prefix}-volume`));

  await signInAsDeveloper(page, '/claims');
  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type(prefix);
  await expect(options(page).first()).toContainText(`${DEV_USER.namespace}/${prefix}-mine`);
  await expect(page.getByTestId('palette-status')).not.toHaveText('Searching…');
  await expect(palette(page)).not.toContainText(`${prefix}-theirs`);
  await expect(palette(page)).not.toContainText(DEV_USER.otherNamespace);
  await expect(palette(page)).not.toContainText(`${prefix}-volume`);

  // No Volumes page for a developer: neither in the palette nor behind g v.
  await search(page).fill('volumes');
  await expect(page.getByTestId('palette-status')).toHaveText(/result|Nothing/);
  await expect(palette(page).getByRole('option', { name: /^Volumes/ })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await page.keyboard.press('g');
  await page.keyboard.press('v');
  await expect(page.getByRole('heading', { level: 1, name: 'Claims' })).toBeVisible();
  await expect(page).toHaveURL(/\/claims$/);

  await page.keyboard.press('Control+K');
  await expect(search(page)).toBeFocused();
  await page.keyboard.type('sign out');
  await expect(options(page).first()).toContainText('Sign out');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/login/);
});
