// The audit view answers "who deleted this claim?": a developer deletes a claim from its
// page, an admin filters the audit log and sees the developer's name on the delete, and
// the filtered rows download as CSV and JSON. The claim's History tab shows the timeline.
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { createObject, findObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, screenshot, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

test('the audit view shows who deleted a claim, and exports it', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const name = uniqueName('audited');
  await createObject(pvcManifest(name, DEV_USER.namespace), DEV_USER.namespace);

  // The developer opens the claim, reads its history, and deletes it.
  await signInAsDeveloper(page, `/claims/${DEV_USER.namespace}/${name}`);
  await page.getByRole('tab', { name: 'History' }).click();
  const history = page.getByTestId('history');
  await expect(history.getByTestId('history-entry').first()).toBeVisible();
  await expect(history).toContainText('Created');
  await history.scrollIntoViewIfNeeded();
  await screenshot(page, 'claim-history');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const axe = await new AxeBuilder({ page }).include('[data-testid="history"]').withTags(['wcag2a', 'wcag2aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${scheme}: ${v.id}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.getByTestId('history-audit-link')).toHaveAttribute('href', `/audit?namespace=${DEV_USER.namespace}&kind=PersistentVolumeClaim&name=${name}`);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByTestId('confirm-delete').click();
  await expect.poll(() => findObject('PersistentVolumeClaim', name, DEV_USER.namespace), { timeout: 15_000 }).toBeUndefined();

  // An admin filters the audit log down to deletes of claims of that name.
  const admin = await (await browser.newContext()).newPage();
  await signInAsAdmin(admin, '/audit');
  await expect(admin.getByRole('heading', { level: 1, name: 'Audit' })).toBeVisible();
  await expect(admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' })).toBeVisible();
  await admin.getByLabel('Kind', { exact: true }).selectOption('PersistentVolumeClaim');
  await admin.getByLabel('Name', { exact: true }).fill(name);
  await admin.getByLabel('Action', { exact: true }).selectOption('delete');
  await admin.getByRole('button', { name: 'Apply' }).click();
  await expect(admin).toHaveURL(new RegExp(`kind=PersistentVolumeClaim.*name=${name}.*action=delete|action=delete.*kind=PersistentVolumeClaim.*name=${name}`));
  const rows = admin.getByTestId('audit-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-actor', `user:${DEV_USER.name}`);
  await expect(rows.first()).toContainText(`user:${DEV_USER.name}`);
  await screenshot(admin, 'audit');

  // Without the action filter the claim's whole life is there: created, deletion requested, removed by a controller.
  await admin.getByLabel('Action', { exact: true }).selectOption('');
  await admin.getByRole('button', { name: 'Apply' }).click();
  await expect(rows.last()).toHaveAttribute('data-action', 'create');
  await expect(admin.getByTestId('audit-row').filter({ hasText: 'removed' })).toHaveCount(1);
  await expect(admin.getByTestId('audit-row').filter({ hasText: 'removed' })).toHaveAttribute('data-actor', /^controller:/);

  // The same rows as files.
  await admin.getByLabel('Action', { exact: true }).selectOption('delete');
  await admin.getByRole('button', { name: 'Apply' }).click();
  await expect(rows).toHaveCount(1);
  const [csv] = await Promise.all([admin.waitForEvent('download'), admin.getByTestId('export-csv').click()]);
  expect(csv.suggestedFilename()).toMatch(/^stowage-audit-.*\.csv$/);
  const text = readFileSync((await csv.path()), 'utf8');
  expect(text.split('\r\n')[0]).toBe('time,actor,action,kind,namespace,name,uid,resourceVersion,change');
  expect(text).toContain(`,user:${DEV_USER.name},delete,PersistentVolumeClaim,${DEV_USER.namespace},${name},`);
  const [json] = await Promise.all([admin.waitForEvent('download'), admin.getByTestId('export-json').click()]);
  const exported = JSON.parse(readFileSync((await json.path()), 'utf8')) as { actor: string; name: string; action: string }[];
  expect(exported.map((r) => [r.actor, r.action, r.name])).toEqual([[`user:${DEV_USER.name}`, 'delete', name]]);
  await admin.context().close();
});
