import { createObject, findObject, getObject, updateObject, type Obj } from '../api';
import { expect, fillCreateForm, pvManifest, screenshot, setEditorText, settledVolume, signInAsAdmin, test, toYaml, uniqueName } from '../helpers';

test('create a volume from YAML and see it in the list', async ({ page }) => {
  const name = uniqueName('pv-create');
  // A wide screen shows every column (at 1280 px the least important ones hide).
  await page.setViewportSize({ width: 1680, height: 900 });
  await signInAsAdmin(page);
  await fillCreateForm(page, toYaml(pvManifest(name, { storage: '5Gi' })));
  await expect(page).toHaveURL(new RegExp(`/volumes/${name}$`));
  await expect(page.getByTestId('detail-title')).toHaveText(name);

  await page.getByRole('link', { name: 'Volumes' }).first().click();
  // Only the rows in view are rendered: find it by name.
  await page.getByRole('textbox', { name: 'Filter by text' }).fill(name);
  const row = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name, exact: true }) });
  await expect(row).toBeVisible();
  await expect(row).toContainText('5 GiB');
  await expect(row).toContainText('RWO');
  await expect(row).toContainText('Retain');
  // REPLICAS joins once the list has shown a replicated volume (another journey may have made one).
  const headers = (await page.getByRole('columnheader').allTextContents()).filter((h) => !h.startsWith('REPLICAS'));
  expect(headers.map((h) => h.replace(/[^A-Z ]+$/, '').trim())).toEqual(['', 'NAME', 'CAPACITY', 'USED', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'AGE']);
  expect(await findObject('PersistentVolume', name)).toBeDefined();
});

test('a second browser sees a new volume appear without reloading', async ({ page, browser, baseURL }) => {
  const name = uniqueName('pv-live');
  const watcherContext = await browser.newContext({ baseURL });
  const watcher = await watcherContext.newPage();
  // Filtered to the name it will have: a live row is checked against the filters too.
  await signInAsAdmin(watcher, `/volumes?q=${name}`);
  await expect(watcher.getByTestId('live-indicator')).toHaveAttribute('data-status', 'live');
  await expect(watcher.getByText('No volumes match these filters.')).toBeVisible();
  await watcher.evaluate(() => ((window as unknown as { __stillHere: boolean }).__stillHere = true));

  await signInAsAdmin(page);
  await fillCreateForm(page, toYaml(pvManifest(name)));
  await expect(page).toHaveURL(new RegExp(`/volumes/${name}$`));

  await expect(watcher.getByRole('link', { name, exact: true })).toBeVisible({ timeout: 5_000 });
  expect(await watcher.evaluate(() => (window as unknown as { __stillHere?: boolean }).__stillHere)).toBe(true);

  // A change made elsewhere (here: through the API, as kubectl would) shows up too.
  const pv = await settledVolume(name);
  await updateObject({ ...pv, metadata: { ...pv.metadata, labels: { e2e: 'true', tier: 'live-edit' } } });
  await watcher.getByRole('textbox', { name: 'Label selector' }).fill('tier=live-edit');
  await expect(watcher.getByTestId('object-row')).toHaveCount(1);
  await watcherContext.close();
});

test('the live indicator shows a dropped stream, and changes made meanwhile appear once it is back', async ({ page }) => {
  const name = uniqueName('pv-offline');
  await signInAsAdmin(page, `/volumes?q=${name}`);
  const live = page.getByTestId('live-indicator');
  await expect(live).toHaveAttribute('data-status', 'live');
  await page.context().setOffline(true);
  await expect(live).toHaveAttribute('data-status', 'reconnecting');
  await expect(live).toHaveText('Reconnecting');
  await createObject(pvManifest(name));
  await page.context().setOffline(false);
  await expect(live).toHaveAttribute('data-status', 'live', { timeout: 15_000 });
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
});

test('list filters: text, label selector (validated) and status', async ({ page }) => {
  const a = uniqueName('pv-filter');
  const b = uniqueName('pv-filter');
  await createObject(pvManifest(a, { labels: { tier: 'fast' }, storage: '2Gi' }));
  await createObject(pvManifest(b, { labels: { tier: 'slow' }, storage: '30Gi' }));
  await signInAsAdmin(page, '/volumes');
  const rows = page.getByTestId('object-row');

  await page.getByRole('textbox', { name: 'Filter by text' }).fill(a);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(a);
  await page.getByRole('textbox', { name: 'Filter by text' }).fill('');

  const selector = page.getByRole('textbox', { name: 'Label selector' });
  await selector.fill('tier in (fast');
  await expect(selector).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('search').getByText(/expected/)).toBeVisible();
  await selector.fill('tier=slow');
  await expect(page.getByRole('link', { name: b, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: a, exact: true })).toHaveCount(0);

  await selector.fill('tier=none-such');
  await expect(page.getByText('No volumes match these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(selector).toHaveValue('');
  await expect(page.getByText('No volumes match these filters.')).toHaveCount(0);

  // Status (phase) filter: a new volume is Pending or Available, never Released.
  await page.getByRole('textbox', { name: 'Filter by text' }).fill(a);
  await page.getByRole('combobox', { name: 'Status' }).click();
  await page.getByRole('option', { name: 'Released' }).click();
  await expect(page.getByText('No volumes match these filters.')).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();

  // Capacity sorts by bytes (2Gi before 30Gi), not as text.
  await page.getByRole('textbox', { name: 'Filter by text' }).fill('pv-filter');
  await page.getByRole('columnheader', { name: /CAPACITY/ }).getByRole('button').click();
  await expect(page.getByRole('columnheader', { name: /CAPACITY/ })).toHaveAttribute('aria-sort', 'ascending');
  // The server answers the new order a moment later.
  await expect
    .poll(async () => {
      const names = await rows.getByTestId('object-name').allTextContents();
      return names.includes(a) && names.includes(b) && names.indexOf(a) < names.indexOf(b);
    })
    .toBe(true);
  await screenshot(page, 'volumes');
});

test('invalid YAML shows the parse error and creates nothing', async ({ page }) => {
  const name = uniqueName('pv-badyaml');
  const creates: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('objects.create')) creates.push(r.url());
  });
  await signInAsAdmin(page);
  await fillCreateForm(page, `apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: ${name}\nspec: [unclosed\n`);
  await expect(page.getByTestId('save-error')).toBeVisible();
  await expect(page.getByTestId('save-error')).toContainText('Invalid YAML');
  await expect(page.getByTestId('save-error')).toContainText('Nothing was created');
  await expect(page).toHaveURL(/\/new/);
  expect(creates).toEqual([]);
  expect(await findObject('PersistentVolume', name)).toBeUndefined();
});

test('a server validation error is shown next to its field path and creates nothing', async ({ page }) => {
  const name = uniqueName('pv-invalid');
  const bad = pvManifest(name) as ReturnType<typeof pvManifest> & { spec: Record<string, unknown> };
  bad.spec.capacity = { storage: 'lots' };
  bad.spec.accessModes = ['ReadWriteSometimes'];
  await signInAsAdmin(page);
  await fillCreateForm(page, toYaml(bad));

  const err = page.getByTestId('save-error');
  await expect(err).toBeVisible();
  const capacity = page.locator('[data-testid="field-error"][data-field="spec.capacity[storage]"]');
  await expect(capacity).toBeVisible();
  await expect(capacity).toContainText('spec.capacity[storage]');
  await expect(page.locator('[data-testid="field-error"][data-field^="spec.accessModes"]')).toBeVisible();
  // The editor marks the line of each field the server named.
  await expect(page.locator('.cm-line[data-error-field~="spec.capacity[storage]"]')).toBeVisible();
  await expect(page.locator('.cm-line[data-error-field~="spec.capacity[storage]"]')).toContainText('storage: lots');
  await expect(page).toHaveURL(/\/new/);
  expect(await findObject('PersistentVolume', name)).toBeUndefined();
  await screenshot(page, 'yaml-editor-error');
});

test("edit a volume's labels in the YAML editor; a stale version shows the conflict", async ({ page }) => {
  const name = uniqueName('pv-edit');
  await createObject(pvManifest(name));
  const created = await settledVolume(name);
  await signInAsAdmin(page, `/volumes/${name}`);
  await expect(page.getByTestId('detail-title')).toHaveText(name);

  await page.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('yaml-editor')).toBeVisible();
  const edited: Obj = { ...created, metadata: { ...created.metadata, labels: { e2e: 'true', tier: 'gold' } } };
  await setEditorText(page, toYaml(edited));
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('metadata')).toContainText('tier=gold');
  expect((await getObject('PersistentVolume', name)).metadata.labels).toEqual({ e2e: 'true', tier: 'gold' });

  // Someone else changes it while the editor is open: saving is refused, reload helps.
  await page.getByRole('button', { name: 'Edit' }).click();
  await expect(dialog.getByTestId('yaml-editor')).toBeVisible();
  const current = await getObject('PersistentVolume', name);
  await updateObject({ ...current, metadata: { ...current.metadata, labels: { e2e: 'true', tier: 'silver' } } });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByTestId('save-error')).toContainText('modified');
  await dialog.getByRole('button', { name: 'Reload latest' }).click();
  await expect(dialog.getByTestId('save-error')).toBeHidden();
  await expect(dialog.getByTestId('yaml-editor')).toContainText('tier: silver');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('metadata')).toContainText('tier=silver');
});

test('delete a volume; one held by a finalizer stays Terminating', async ({ page }) => {
  const name = uniqueName('pv-delete');
  const held = uniqueName('pv-held');
  await createObject(pvManifest(name));
  await createObject(pvManifest(held, { finalizers: ['example.com/hold'] }));
  await settledVolume(name);
  await settledVolume(held);
  await signInAsAdmin(page, `/volumes/${name}`);

  // PV protection lets an unbound volume go at once: the page says it was deleted.
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('dialog')).toContainText(name);
  await page.getByTestId('confirm-delete').click();
  await expect(page.getByTestId('detail-error')).toContainText('was deleted');
  expect(await findObject('PersistentVolume', name)).toBeUndefined();
  await page.goto('/volumes');
  await expect(page.getByTestId('object-table')).toBeVisible();
  await expect(page.getByRole('link', { name, exact: true })).toHaveCount(0);

  await page.goto(`/volumes/${held}`);
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm-delete').click();
  await expect(page.getByTestId('terminating')).toBeVisible();
  await expect(page.getByTestId('terminating')).toContainText('example.com/hold');
  const still = await getObject('PersistentVolume', held);
  expect(still.metadata.deletionTimestamp).toBeTruthy();
});
