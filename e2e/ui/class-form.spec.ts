// The StorageClass form: an admin creates a class with the plugin's own fields (the same
// checks as the API), edits one and moves the default, and sees why some fields are fixed.
import { createObject, defaultClasses, findObject, getObject, setDefaultClass, type Obj } from '../api';
import { expect, screenshot, signInAsAdmin, test, uniqueName } from '../helpers';

let before: string[] = [];
test.beforeEach(async () => {
  before = await defaultClasses();
});
// Other tests rely on the default class the server started with: give it back.
test.afterEach(async () => {
  if (before.length > 0) await setDefaultClass(before[0], true);
});

test('an admin edits a class through the form and moves the default', async ({ page }) => {
  const name = uniqueName('sc-form');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/e2e', parameters: { server: 'nfs.local' }, reclaimPolicy: 'Retain' });

  await signInAsAdmin(page, `/storage-classes/${name}`);
  await page.getByTestId('edit-class-form').click();
  await expect(page.getByRole('heading', { level: 1, name: `Edit storage class ${name}` })).toBeVisible();
  // Fixed fields are explained and cannot be changed here.
  await expect(page.getByText('Fixed once the class exists')).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Reclaim policy' })).toBeDisabled();

  await page.getByRole('textbox', { name: 'Description' }).fill('NFS for the e2e team');
  await page.getByRole('switch', { name: 'Allow volume expansion' }).check();
  await page.getByRole('textbox', { name: 'Mount options' }).fill('hard\nnfsvers=4.1');
  await page.getByRole('switch', { name: 'Default class' }).check();
  await screenshot(page, 'class-form');
  await page.getByTestId('save-class').click();

  await expect(page).toHaveURL(new RegExp(`/storage-classes/${name}$`));
  await expect(page.getByTestId('default-switch')).toBeChecked();
  const sc = await getObject<Obj & { allowVolumeExpansion?: boolean; mountOptions?: string[] }>('StorageClass', name);
  expect(sc.allowVolumeExpansion).toBe(true);
  expect(sc.mountOptions).toEqual(['hard', 'nfsvers=4.1']);
  expect((sc.metadata.annotations as Record<string, string>)['storageclass.kubernetes.io/description']).toBe('NFS for the e2e team');
  // Exactly one default, and it is this class.
  expect(await defaultClasses()).toEqual([name]);
});

test('the form checks a host-path class as the API does, and creates it', async ({ page }) => {
  const name = uniqueName('sc-new');
  await signInAsAdmin(page, '/storage-classes');
  await page.getByRole('link', { name: 'Create storage class' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create storage class' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByRole('textbox', { name: 'Base path (basePath)' }).fill('/etc/stowage');
  await page.getByTestId('save-class').click();
  await expect(page.getByTestId('form-errors')).toContainText('may not be in the system directory /etc');
  await page.getByRole('textbox', { name: 'Base path (basePath)' }).fill(`/srv/stowage-e2e/${name}`);
  await page.getByRole('textbox', { name: 'Mode (mode)' }).fill('0750');
  await expect(page.getByTestId('form-errors')).toHaveCount(0);
  await page.getByTestId('save-class').click();
  await expect(page).toHaveURL(new RegExp(`/storage-classes/${name}$`));
  const sc = await getObject<Obj & { provisioner: string; parameters: Record<string, string> }>('StorageClass', name);
  expect(sc.provisioner).toBe('stowage.io/host-path');
  expect(sc.parameters).toEqual({ basePath: `/srv/stowage-e2e/${name}`, mode: '0750' });
});

test('clone and replace previews what changes and makes the new class', async ({ page }) => {
  const name = uniqueName('sc-clone');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/e2e', reclaimPolicy: 'Delete' });
  await signInAsAdmin(page, `/storage-classes/${name}/edit`);
  await page.getByTestId('start-clone').click();
  await expect(page.getByRole('heading', { level: 1, name: `Clone and replace ${name}` })).toBeVisible();
  await page.getByRole('combobox', { name: 'Reclaim policy' }).click();
  await page.getByRole('option', { name: 'Retain' }).click();
  await page.getByTestId('preview-clone').click();
  const preview = page.getByTestId('clone-preview');
  await expect(preview.locator('[data-field="name"]')).toContainText(`${name}-2`);
  await expect(preview.locator('[data-field="reclaimPolicy"]')).toContainText('Retain');
  await expect(preview.getByText('A dry run of the create passed every check.')).toBeVisible();
  await preview.getByRole('checkbox', { name: `Delete ${name} once ${name}-2 exists` }).check();
  await page.getByTestId('confirm-clone').click();
  await expect(page).toHaveURL(new RegExp(`/storage-classes/${name}-2$`));
  expect((await getObject<Obj & { reclaimPolicy: string }>('StorageClass', `${name}-2`)).reclaimPolicy).toBe('Retain');
  // Replaced: the original is gone.
  expect(await findObject('StorageClass', name)).toBeUndefined();
});

test('replace in place previews the changes and the server’s steps, and keeps the name', async ({ page }) => {
  const name = uniqueName('sc-replace');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, labels: { team: 'e2e' } }, provisioner: 'example.com/e2e', reclaimPolicy: 'Delete' });
  const before = await getObject<Obj>('StorageClass', name);
  await signInAsAdmin(page, `/storage-classes/${name}/edit`);
  await page.getByTestId('start-clone').click();
  await page.getByRole('switch', { name: `Replace in place: keep the name ${name}` }).check();
  await expect(page.getByRole('heading', { level: 1, name: `Replace in place ${name}` })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue(name);
  await page.getByRole('combobox', { name: 'Reclaim policy' }).click();
  await page.getByRole('option', { name: 'Retain' }).click();
  await page.getByTestId('preview-clone').click();
  const preview = page.getByTestId('clone-preview');
  await expect(preview.locator('[data-field="reclaimPolicy"]')).toContainText('Retain');
  await expect(preview.locator('[data-field="name"]')).toHaveCount(0);
  await expect(preview.getByText('A dry run of the replacement passed every check.')).toBeVisible();
  await expect(preview.getByRole('listitem').filter({ hasText: `delete class ${name} (version ${String(before.metadata.resourceVersion)})` })).toBeVisible();
  await expect(preview.getByRole('listitem').filter({ hasText: `create class ${name} with the changes` })).toBeVisible();
  // The dry run wrote nothing.
  expect((await getObject<Obj>('StorageClass', name)).metadata.uid).toBe(before.metadata.uid);
  await page.getByTestId('confirm-clone').click();
  await expect(page).toHaveURL(new RegExp(`/storage-classes/${name}$`));
  const after = await getObject<Obj & { reclaimPolicy: string }>('StorageClass', name);
  expect(after.reclaimPolicy).toBe('Retain');
  expect(after.metadata.uid).not.toBe(before.metadata.uid);
  expect(after.metadata.labels).toEqual({ team: 'e2e' });
});


test('a btrfs pool class offers replicas and the replication interval, checked as the API does', async ({ page }) => {
  const name = uniqueName('sc-repl');
  await signInAsAdmin(page, '/storage-classes');
  await page.getByRole('link', { name: 'Create storage class' }).first().click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create storage class' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByRole('combobox', { name: 'Provisioner' }).click();
  await page.getByRole('option', { name: 'Btrfs pool (stowage.io/btrfs)' }).click();
  await page.getByRole('textbox', { name: 'Pool (pool)' }).fill(`/srv/stowage-e2e/${name}`);
  await expect(page.getByText('Copies of each volume in all, each on another node (1: not replicated)')).toBeVisible();
  await page.getByRole('combobox', { name: 'Replicas (replicas)' }).click();
  await page.getByRole('option', { name: '2', exact: true }).click();
  await page.getByRole('textbox', { name: 'Replication interval (replicationInterval)' }).fill('1s');
  await page.getByTestId('save-class').click();
  await expect(page.getByTestId('form-errors')).toContainText('must be from 5s to 60m');
  await page.getByRole('textbox', { name: 'Replication interval (replicationInterval)' }).fill('10s');
  await expect(page.getByTestId('form-errors')).toHaveCount(0);
  await page.getByTestId('save-class').click();
  await expect(page).toHaveURL(new RegExp(`/storage-classes/${name}$`));
  const sc = await getObject<Obj & { provisioner: string; parameters: Record<string, string> }>('StorageClass', name);
  expect(sc.provisioner).toBe('stowage.io/btrfs');
  expect(sc.parameters).toEqual({ pool: `/srv/stowage-e2e/${name}`, replicas: '2', replicationInterval: '10s' });
});
