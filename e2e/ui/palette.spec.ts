// The command palette and the keyboard shortcuts, used with the keyboard only.
import { createObject } from '../api';
import { expect, pvManifest, signInAsAdmin, test, uniqueName } from '../helpers';

test('Ctrl+K finds a volume by name and opens it; g c goes to Claims; ? lists the shortcuts; / focuses the filter', async ({ page }) => {
  const name = uniqueName('palette-pv');
  await createObject(pvManifest(name));
  await signInAsAdmin(page, '/volumes');
  await expect(page.getByRole('heading', { level: 1, name: 'Volumes' })).toBeVisible();

  await page.keyboard.press('Control+K');
  const search = page.getByRole('textbox', { name: 'Command palette search' });
  await expect(search).toBeFocused();
  await page.keyboard.type(name);
  const hit = page.locator('.mantine-Spotlight-action', { hasText: name });
  await expect(hit).toBeVisible();
  await expect(page.locator('.mantine-Spotlight-action').first()).toContainText(name);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/volumes/${name}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);

  await page.keyboard.press('g');
  await page.keyboard.press('c');
  await expect(page).toHaveURL(/\/claims$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Claims' })).toBeVisible();

  await page.keyboard.press('/');
  await expect(page.getByRole('textbox', { name: 'Filter by text' })).toBeFocused();
  // Typing in a field does not trigger shortcuts.
  await page.keyboard.type('gv');
  await expect(page).toHaveURL(/\/claims/);
  await page.keyboard.press('Escape');
  await page.locator('main').click({ position: { x: 5, y: 5 } });

  await page.keyboard.press('Shift+?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toContainText('Focus the list filter');
});
