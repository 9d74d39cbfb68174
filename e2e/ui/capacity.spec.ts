// An admin opens Capacity: a class's provisioned and bound figures, the per-node and
// per-namespace tabs and the trend chart; the home page lists a quota near full. The class
// and the quota's per-class limit belong to this test, so no other journey is affected.
import { createObject, getObject } from '../api';
import { expect, pvcManifest, pvManifest, screenshot, settledVolume, signInAsAdmin, test, uniqueName } from '../helpers';

test('an admin sees capacity per class with its trend, and the home page shows a quota near full', async ({ page }) => {
  const cls = uniqueName('cap');
  const ns = 'default';
  const quota = `${cls}-room`;
  const limit = `${cls}.storageclass.storage.k8s.io/requests.storage`;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: quota, namespace: ns }, spec: { hard: { [limit]: '6Gi' } } }, ns);
  const big = uniqueName('cap-big');
  const small = uniqueName('cap-small');
  await createObject(pvManifest(big, { storage: '10Gi', storageClassName: cls }));
  await createObject(pvManifest(small, { storage: '5Gi', storageClassName: cls }));
  await settledVolume(big);
  await settledVolume(small);
  const claim = uniqueName('cap-claim');
  await createObject(pvcManifest(claim, ns, '5Gi', cls), ns);
  await expect
    .poll(async () => ((await getObject('PersistentVolumeClaim', claim, ns)).status as { phase?: string } | undefined)?.phase, { timeout: 20_000 })
    .toBe('Bound');

  await signInAsAdmin(page, '/');
  // Home: the quota is 5 of 6 Gi used (83%) for this class.
  const near = page.getByTestId('quotas-near-full');
  await expect(near).toContainText(`${ns}/${quota}`);
  await expect(near).toContainText(`${limit} 5Gi of 6Gi (83%)`);
  await near.getByRole('link', { name: `${ns}/${quota}` }).click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${quota}$`));

  await page.getByTestId('nav-capacity').click();
  await expect(page).toHaveURL(/\/capacity$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Capacity' })).toBeVisible();
  const row = page.getByTestId(`class-row-${cls}`);
  await expect(row.getByTestId('provisioned')).toHaveText('15Gi');
  await expect(row.getByTestId('bound')).toHaveText('5Gi (33%)');
  await expect(row).toContainText('unknown');

  // The trend of this class: a chart with its lines and an estimate.
  await page.getByRole('combobox', { name: 'Class' }).click();
  await page.getByRole('option', { name: cls, exact: true }).click();
  const chart = page.getByTestId('trend-chart');
  await expect(chart.locator('svg.recharts-surface')).toBeVisible();
  await expect(chart.locator('.recharts-line-curve')).toHaveCount(3);
  await expect(chart).toContainText('15Gi provisioned, 5Gi bound, 5Gi requested');
  await expect(page.getByTestId('forecast')).toContainText(/unknown|days|not filling|full/);
  await screenshot(page, 'capacity');

  await page.getByRole('tab', { name: 'Per namespace' }).click();
  await expect(page.getByTestId('capacity-namespaces')).toContainText(ns);
});
