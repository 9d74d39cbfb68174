// The self-service claim form as a developer and an admin use it: the live check says
// what a claim would do before it exists, the default class moves atomically, and a
// claim can be requested with the keyboard alone.
import { createObject, getObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, pvManifest, screenshot, settledVolume, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

function storageClass(name: string, provisioner = 'kubernetes.io/no-provisioner', annotations: Record<string, string> = {}) {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, annotations }, provisioner };
}

test('a developer sees the claim would sit Pending, fixes the size, and it binds', async ({ page }) => {
  const cls = uniqueName('manual');
  const pv = uniqueName('pv-form');
  const claim = uniqueName('data');
  await createObject(storageClass(cls, 'kubernetes.io/no-provisioner', { 'storageclass.kubernetes.io/description': 'Disks an administrator set up' }));
  await createObject(pvManifest(pv, { storage: '5Gi', storageClassName: cls }));
  await settledVolume(pv);

  await signInAsDeveloper(page, '/claims');
  await page.getByRole('link', { name: 'Create claim', exact: true }).first().click();
  await expect(page.getByRole('heading', { name: 'Request storage' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Name' }).fill(claim);
  const picker = page.getByTestId('class-picker');
  await expect(picker).toContainText('Disks an administrator set up');
  // A class that makes no volumes says so, and how many of its volumes a claim can still get.
  const card = picker.locator('.mantine-Paper-root', { hasText: cls });
  await expect(card.getByTestId('class-static')).toHaveText('1 volume available');
  await expect(card).toContainText('Makes no volumes');
  await picker.getByRole('radio', { name: new RegExp(cls) }).check();
  // no-provisioner makes nothing: only what it offers is shown (all modes, as for external).
  await page.getByRole('textbox', { name: 'Size' }).fill('50');

  const check = page.getByTestId('claim-check');
  await expect(check).toHaveAttribute('data-outcome', 'pending');
  await expect(check).toContainText('Would sit Pending');
  await expect(page.getByTestId('nearest-reasons')).toContainText('5Gi');
  // A developer is not told the names of volumes.
  await expect(check).not.toContainText(pv);
  await screenshot(page, 'claim-form-pending');

  await page.getByRole('textbox', { name: 'Size' }).fill('2');
  await expect(check).toHaveAttribute('data-outcome', 'binds');
  await expect(check).toContainText('Binds now to an existing volume of 5Gi');
  await page.getByRole('button', { name: 'Create claim' }).click();
  await expect(page).toHaveURL(new RegExp(`/claims/${DEV_USER.namespace}/${claim}$`));
  await expect(page.getByTestId('summary')).toContainText('Bound', { timeout: 15_000 });
  const saved = await getObject<Obj & { spec: { volumeName?: string; resources: { requests: { storage: string } } } }>('PersistentVolumeClaim', claim, DEV_USER.namespace);
  expect(saved.spec.volumeName).toBe(pv);
  expect(saved.spec.resources.requests.storage).toBe('2Gi');
});

test('the form offers only the modes the class\'s provisioner makes', async ({ page }) => {
  const cls = uniqueName('hostpath');
  await createObject({ ...storageClass(cls, 'stowage.io/host-path'), parameters: { basePath: '/tmp/stowage-e2e-form' } });
  await signInAsDeveloper(page, '/claims/new');
  await page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(cls) }).check();
  await expect(page.getByRole('checkbox', { name: /ReadWriteMany/ })).toHaveCount(0);
  await expect(page.getByRole('checkbox', { name: /ReadWriteOnce \(/ })).toBeChecked();
  await expect(page.getByRole('radio', { name: /Block/ })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Name' }).fill(uniqueName('c'));
  await expect(page.getByTestId('claim-check')).toHaveAttribute('data-outcome', 'provisions');
  await expect(page.getByTestId('claim-check')).toContainText('stowage.io/host-path');
});

test('an admin moves the default class: exactly one is default afterwards', async ({ page }) => {
  const a = uniqueName('gold');
  const b = uniqueName('silver');
  await createObject(storageClass(a, 'kubernetes.io/no-provisioner', { 'storageclass.kubernetes.io/is-default-class': 'true' }));
  await createObject(storageClass(b, 'kubernetes.io/no-provisioner', { 'storageclass.kubernetes.io/is-default-class': 'true' }));
  const isDefault = async (n: string) =>
    ((await getObject<Obj & { metadata: { annotations?: Record<string, string> } }>('StorageClass', n)).metadata.annotations ?? {})['storageclass.kubernetes.io/is-default-class'] === 'true';

  await signInAsAdmin(page, `/storage-classes/${b}`);
  // The API accepted two defaults; the page says so.
  await expect(page.getByTestId('several-defaults')).toContainText(a);
  await page.goto(`/storage-classes/${a}`);
  const sw = page.getByRole('switch', { name: 'Default class' });
  await expect(sw).toBeChecked();
  await sw.click();
  await expect(sw).not.toBeChecked();
  await page.goto(`/storage-classes/${b}`);
  await expect(page.getByTestId('several-defaults')).toHaveCount(0);
  await expect(page.getByRole('switch', { name: 'Default class' })).toBeChecked();
  expect([await isDefault(a), await isDefault(b)]).toEqual([false, true]);

  // Moving it to a: b stops being default in the same step.
  await page.goto(`/storage-classes/${a}`);
  await page.getByRole('switch', { name: 'Default class' }).click();
  await expect(page.getByRole('switch', { name: 'Default class' })).toBeChecked();
  expect([await isDefault(a), await isDefault(b)]).toEqual([true, false]);
  await screenshot(page, 'default-class');
  // Leave no default behind for the other tests: a is the only default, so the page asks first.
  await page.getByRole('switch', { name: 'Default class' }).click();
  await page.getByTestId('confirm-no-default').click();
  await expect.poll(() => isDefault(a)).toBe(false);
});

test('a claim can be requested with the keyboard alone', async ({ page }) => {
  const claim = uniqueName('kbd');
  await signInAsDeveloper(page, '/claims/new');
  await expect(page.getByRole('heading', { name: 'Request storage' })).toBeVisible();
  const name = page.getByRole('textbox', { name: 'Name' });
  // Tab from the top of the page to the Name field (bounded).
  for (let i = 0; i < 40 && !(await name.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(name).toBeFocused();
  await page.keyboard.type(claim);
  await expect(page.getByTestId('claim-check')).not.toHaveAttribute('data-outcome', 'incomplete');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/claims/${DEV_USER.namespace}/${claim}$`));
  expect((await getObject('PersistentVolumeClaim', claim, DEV_USER.namespace)).metadata.name).toBe(claim);
});

test("a refused create's error goes away once the claim changes (name, size or class)", async ({ page }) => {
  const cls = uniqueName('manual');
  const other = uniqueName('manual');
  const taken = uniqueName('taken');
  await createObject(storageClass(cls));
  await createObject(storageClass(other));
  await createObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: taken }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '1Gi' } } } }, DEV_USER.namespace);
  await signInAsDeveloper(page, '/claims/new');
  await page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(cls) }).check();
  const refusal = page.getByRole('alert').filter({ hasText: 'Not created' });
  const refuse = async () => {
    await page.getByRole('textbox', { name: 'Name' }).fill(taken);
    await page.getByRole('button', { name: 'Create claim' }).click();
    await expect(refusal).toContainText('already exists');
  };
  await refuse();
  await page.getByRole('textbox', { name: 'Name' }).fill(`${taken}-2`);
  await expect(refusal).toHaveCount(0);
  await refuse();
  await page.getByRole('textbox', { name: 'Size' }).fill('3');
  await expect(refusal).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Size' }).fill('1');
  await refuse();
  await page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(other) }).check();
  await expect(refusal).toHaveCount(0);
});

test('a static WaitForFirstConsumer class with a fitting volume: binds when a pod uses it, not "an administrator must create one"', async ({ page }) => {
  const cls = uniqueName('disks');
  const pv = uniqueName('pv-wffc');
  await createObject({ ...storageClass(cls), volumeBindingMode: 'WaitForFirstConsumer' });
  const manifest = pvManifest(pv, { storage: '5Gi', storageClassName: cls });
  await createObject({
    ...manifest,
    spec: {
      ...manifest.spec,
      hostPath: undefined,
      local: { path: `/tmp/stowage-e2e/${pv}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['vm-e2e'] }] }] } },
    },
  });
  await settledVolume(pv);
  await signInAsDeveloper(page, '/claims/new');
  await page.getByRole('textbox', { name: 'Name' }).fill(uniqueName('c'));
  await page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(cls) }).check();
  const check = page.getByTestId('claim-check');
  await expect(check).toHaveAttribute('data-outcome', 'binds');
  await expect(check).toContainText('Binds when a pod uses it');
  await expect(check).toContainText('1 existing volume fits on node vm-e2e');
  await expect(check).not.toContainText('administrator');
  await page.getByRole('textbox', { name: 'Size' }).fill('50');
  await expect(check).toHaveAttribute('data-outcome', 'pending');
});
