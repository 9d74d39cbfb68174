// Lists that scale: the server pages, sorts and filters; the view lives in the URL; rows
// are selected for bulk actions; a Released volume is made Available again.
import { createObject, getObject, type Obj } from '../api';
import { expect, pvManifest, screenshot, settledVolume, signInAsAdmin, test, uniqueName } from '../helpers';

test('sort and filter from the URL, and the URL follows the view', async ({ page }) => {
  const run = uniqueName('run');
  const names = ['a', 'b', 'c'].map((x) => `${run}-${x}`);
  const sizes = ['3Gi', '10Gi', '1Gi'];
  for (let i = 0; i < 3; i++) await createObject(pvManifest(names[i], { labels: { 'list-e2e': run }, storage: sizes[i] }));

  await signInAsAdmin(page, `/volumes?selector=list-e2e%3D${run}&sort=-capacity`);
  const rows = page.getByTestId('object-row');
  await expect(rows).toHaveCount(3);
  await expect(page.getByRole('columnheader', { name: /CAPACITY/ })).toHaveAttribute('aria-sort', 'descending');
  expect(await rows.getByTestId('object-name').allTextContents()).toEqual([names[1], names[0], names[2]]);

  await page.getByRole('columnheader', { name: /NAME/ }).getByRole('button').click();
  await expect(page).not.toHaveURL(/sort=/);
  await expect.poll(() => rows.getByTestId('object-name').allTextContents()).toEqual(names);
  await page.getByRole('textbox', { name: 'Filter by text' }).fill(`${run}-b`);
  await expect(page).toHaveURL(new RegExp(`q=${run}-b`));
  await expect(rows).toHaveCount(1);
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Filter by text' })).toHaveValue(`${run}-b`);
  await expect(rows).toHaveCount(1);
});

test('a long list loads further pages as it scrolls', async ({ page }) => {
  const run = uniqueName('page');
  for (let i = 0; i < 130; i++) await createObject(pvManifest(`${run}-${String(i).padStart(3, '0')}`, { labels: { 'page-e2e': run } }));
  await signInAsAdmin(page, `/volumes?selector=page-e2e%3D${run}`);
  await expect(page.getByTestId('list-count')).toHaveText('130 volumes match');
  // Only the rows in view are in the page.
  expect(await page.getByTestId('object-row').count()).toBeLessThan(80);
  const table = page.getByTestId('object-table');
  await table.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(page.getByRole('link', { name: `${run}-129`, exact: true })).toBeVisible();
});

test('bulk label, a label column, and making a Released volume Available', async ({ page }) => {
  const run = uniqueName('bulk');
  const [a, b] = [`${run}-a`, `${run}-b`];
  await createObject(pvManifest(a, { labels: { 'bulk-e2e': run } }));
  // Bound to a claim that is gone: the binder releases it.
  await createObject({
    ...pvManifest(b, { labels: { 'bulk-e2e': run } }),
    spec: { ...pvManifest(b).spec, claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: uniqueName('gone'), uid: '00000000-0000-0000-0000-000000000001' } },
  });
  await expect.poll(async () => ((await getObject<Obj & { status?: { phase?: string } }>('PersistentVolume', b)).status?.phase), { timeout: 15_000 }).toBe('Released');

  await signInAsAdmin(page, `/volumes?selector=bulk-e2e%3D${run}`);
  await expect(page.getByTestId('object-row')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'Select all loaded rows' }).check();
  await page.getByRole('button', { name: 'Label…' }).click();
  await page.getByRole('textbox', { name: 'Label', exact: true }).fill('team=blue');
  await page.getByTestId('confirm-bulk').click();
  await expect(page.getByTestId('bulk-result')).toContainText('2 done');

  await page.getByRole('button', { name: 'Columns' }).click();
  await page.getByRole('textbox', { name: 'Add a label column' }).fill('team');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(/cols=/);
  await expect(page.getByRole('columnheader', { name: 'team' })).toBeVisible();
  await expect(page.getByTestId('object-row').filter({ hasText: 'blue' })).toHaveCount(2);

  // Only the Released one can be made Available.
  await page.getByRole('checkbox', { name: `Select ${b}` }).check();
  await page.getByRole('button', { name: 'Make Available…' }).click();
  await page.getByTestId('confirm-bulk').click();
  await expect(page.getByTestId('bulk-result')).toContainText('1 done');
  await expect.poll(async () => ((await getObject<Obj & { status?: { phase?: string } }>('PersistentVolume', b)).status?.phase), { timeout: 15_000 }).toBe('Available');
  await expect(page.getByTestId('object-row').filter({ hasText: b })).toContainText('Available');
  await screenshot(page, 'lists');
  expect((await settledVolume(b)).spec).not.toHaveProperty('claimRef');
});
