// The quota pages: the list shows each limit's use with a bar, and the quota's own page
// (which had an empty Summary) shows every limit as a bar, in binary sizes, with the exact
// quantities on hover: for the developer of the namespace and for the admin alike.
import { createObject, getObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, screenshotThemes, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

test('a quota page shows used and hard limits as bars, for the developer and the admin', async ({ page }) => {
  const ns = DEV_USER.namespace;
  const cls = uniqueName('qpage');
  const quota = `${cls}-room`;
  const storage = `${cls}.storageclass.storage.k8s.io/requests.storage`;
  const claims = `${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: quota, namespace: ns }, spec: { hard: { [storage]: '50Gi', [claims]: '2' } } }, ns);
  await createObject(pvcManifest(uniqueName('a'), ns, '38Gi', cls), ns);
  await createObject(pvcManifest(uniqueName('b'), ns, '1536Mi', cls), ns);

  await signInAsDeveloper(page, `/quotas?namespace=${ns}`);
  await expect(page.getByRole('button', { name: 'Create quota' })).toHaveCount(0);
  const row = page.getByTestId('object-row').filter({ hasText: quota });
  // One line per limit: its short name (the full one on hover), a bar, used/hard.
  await expect(row.locator(`[data-resource="${storage}"]`)).toContainText(`${cls}: storage`);
  await expect(row.locator(`[data-resource="${storage}"]`)).toContainText('39.5 GiB/50 GiB');
  await expect(row.locator(`[data-resource="${storage}"]`).getByTitle(storage)).toBeVisible();
  await expect(row.locator(`[data-resource="${claims}"]`)).toHaveAttribute('data-full', 'true');
  await expect(row.getByRole('progressbar', { name: `${storage}: 39.5 GiB of 50 GiB used` })).toBeVisible();

  await row.getByTestId('object-name').click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${quota}$`));
  const summary = page.getByTestId('summary');
  const size = summary.locator(`[data-resource="${storage}"]`);
  await expect(size).toContainText('39.5 GiB of 50 GiB');
  await expect(size.getByTestId('quota-amounts')).toHaveAttribute('title', '40448Mi of 50Gi');
  await expect(size).toHaveAttribute('data-full', 'false');
  await expect(summary.getByRole('progressbar', { name: `${storage}: 39.5 GiB of 50 GiB used` })).toHaveAttribute('aria-valuenow', '79');
  await expect(summary.locator(`[data-resource="${claims}"]`)).toContainText('2 of 2');
  await expect(summary.locator(`[data-resource="${claims}"]`)).toHaveAttribute('data-full', 'true');
  await expect(page.getByTestId('quota-edit-link')).toHaveCount(0);
  await screenshotThemes(page, 'quota-detail');

  // The admin sees the same page.
  await page.context().clearCookies();
  await signInAsAdmin(page, `/quotas/${ns}/${quota}`);
  await expect(page.getByTestId('summary').locator(`[data-resource="${storage}"]`)).toContainText('39.5 GiB of 50 GiB');
  await expect(page.getByTestId('quota-edit-link')).toBeVisible();
});

test('an admin creates a quota with the form and edits its limits', async ({ page }) => {
  // A namespace of its own: claims other tests leave elsewhere must not count here.
  const ns = uniqueName('quota-form');
  await createObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const name = uniqueName('form-quota');
  await signInAsAdmin(page, `/quotas?namespace=${ns}`);
  await page.getByRole('link', { name: 'Create quota' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Create quota');
  const form = page.getByRole('form', { name: 'Quota' });
  await expect(form.getByRole('combobox', { name: 'Namespace' })).toHaveValue(ns);
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  // A storage limit is a size with its unit: a bare number is never bytes.
  await form.getByRole('textbox', { name: 'Amount 1' }).fill('lots');
  await form.getByRole('button', { name: 'Create quota' }).click();
  await expect(form).toContainText('a size, such as 50 Gi');
  await form.getByRole('textbox', { name: 'Amount 1' }).fill('10');
  await expect(form.getByRole('combobox', { name: 'Unit 1' })).toHaveValue('Gi');
  await form.getByRole('button', { name: 'Create quota' }).click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${name}$`));
  await expect(page.getByTestId('summary').locator('[data-resource="requests.storage"]')).toContainText('0 B of 10 GiB');

  // The quota controller has counted the namespace before the edit form opens.
  await expect.poll(async () => (await getObject<Obj & { status?: { used?: Record<string, string> } }>('ResourceQuota', name, ns)).status?.used?.['requests.storage']).toBe('0');
  await page.reload();
  await page.getByTestId('quota-edit-link').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Edit quota ${name}`);
  // Each limit shows what the namespace uses of it now.
  await expect(form.getByTestId('quota-limit-use').first()).toContainText('0 B used now of 10 GiB');
  // A pasted quantity is read as written.
  await form.getByRole('textbox', { name: 'Amount 1' }).fill('20Gi');
  await expect(form.getByRole('combobox', { name: 'Unit 1' })).toHaveValue('Gi');
  await form.getByRole('button', { name: 'Add limit' }).click();
  await form.getByRole('combobox', { name: 'Resource 2' }).fill('persistentvolumeclaims');
  await form.getByRole('textbox', { name: 'Amount 2' }).fill('5');
  await form.getByRole('button', { name: 'Save quota' }).click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${name}$`));
  const summary = page.getByTestId('summary');
  await expect(summary.locator('[data-resource="requests.storage"]')).toContainText('0 B of 20 GiB');
  await expect(summary.locator('[data-resource="persistentvolumeclaims"]')).toContainText('0 of 5');
});
