// A developer hits the namespace quota and is told so: the claim form shows the room the
// quota leaves for the chosen class, warns before submit, and the refused create shows the
// server's own "exceeded quota" message. The quota limits only this test's class, so no
// other journey's claims are affected.
import { createObject, findObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, screenshot, signInAsDeveloper, test, uniqueName } from '../helpers';

test('a developer hits the namespace quota and is told so', async ({ page }) => {
  const ns = DEV_USER.namespace;
  const cls = uniqueName('quota');
  const claim = uniqueName('big');
  const limit = `${cls}.storageclass.storage.k8s.io/requests.storage`;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: `${cls}-room`, namespace: ns }, spec: { hard: { [limit]: '50Gi' } } });
  await createObject(pvcManifest(uniqueName('used'), ns, '38Gi', cls), ns);

  await signInAsDeveloper(page, '/claims/new');
  await page.getByRole('textbox', { name: 'Name' }).fill(claim);
  await page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(cls) }).check();
  await page.getByRole('textbox', { name: 'Size' }).fill('5');

  const room = page.getByTestId('quota-room');
  await expect(room).toContainText(`12 GiB of 50 GiB left in ${ns} for class ${cls}`);
  await expect(room).toHaveAttribute('data-exceeds', 'false');

  await page.getByRole('textbox', { name: 'Size' }).fill('20');
  await expect(room).toHaveAttribute('data-exceeds', 'true');
  await expect(room).toContainText(`This claim exceeds the quota of ${ns}`);
  // One outcome: the refusal in GiB, naming the quota and what is left; Create disabled; no "Will be provisioned".
  await expect(page.getByTestId('quota-refusal')).toContainText(`Quota ${cls}-room: this claim asks for 20 GiB of storage of class ${cls}; 12 GiB of 50 GiB is left.`);
  await expect(page.getByTestId('quota-refusal')).toHaveAttribute('title', `exceeded quota: ${cls}-room, requested: ${limit}=20Gi, used: ${limit}=38Gi, limited: ${limit}=50Gi`);
  await expect(page.getByText('Over the quota: request less to create it.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create claim' })).toBeDisabled();
  await expect(page.getByTestId('claim-check')).toHaveCount(0);
  await page.getByRole('button', { name: 'Create claim' }).scrollIntoViewIfNeeded();
  await screenshot(page, 'claim-form-quota');
  expect(await findObject('PersistentVolumeClaim', claim, ns)).toBeUndefined();

  // Within the room left it is created.
  await page.getByRole('textbox', { name: 'Size' }).fill('12');
  await expect(room).toHaveAttribute('data-exceeds', 'false');
  await page.getByRole('button', { name: 'Create claim' }).click();
  await expect(page).toHaveURL(new RegExp(`/claims/${ns}/${claim}$`));

  // The quota's page in the dashboard: the room is all used now.
  await page.goto('/quotas');
  const row = page.getByTestId('object-row').filter({ hasText: `${cls}-room` });
  // The list names the limit the short way (the class, then what it counts) beside its use.
  await expect(row).toContainText(`${cls}: storage`);
  await expect(row).toContainText('50 GiB/50 GiB');
});
