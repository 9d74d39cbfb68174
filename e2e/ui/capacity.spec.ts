// An admin opens Capacity: a class's provisioned and bound figures, the per-node and
// per-namespace tabs (with the days until a quota is full) and the trend chart; the home
// page lists a quota near full. A developer sees the quota forecast of their namespace and
// nothing of another's. The classes and the quotas' per-class limits belong to these tests,
// so no other journey is affected.
import { createObject, getObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, pvManifest, screenshot, settledVolume, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

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
  // Home: the quota is 5 of 6 GiB used (83%) for this class.
  const near = page.getByTestId('quotas-near-full');
  await expect(near).toContainText(`${ns}/${quota}`);
  await expect(near).toContainText(`${limit} 5 GiB of 6 GiB (83%)`);
  await near.getByRole('link', { name: `${ns}/${quota}` }).click();
  await expect(page).toHaveURL(new RegExp(`/quotas/${ns}/${quota}$`));

  await page.getByTestId('nav-capacity').click();
  await expect(page).toHaveURL(/\/capacity$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Capacity' })).toBeVisible();
  const row = page.getByTestId(`class-row-${cls}`);
  await expect(row.getByTestId('provisioned')).toHaveText('15 GiB');
  await expect(row.getByTestId('bound')).toHaveText('5 GiB (33%)');
  await expect(row).toContainText('unknown');

  // The trend of this class: a chart with its lines and an estimate.
  await page.getByRole('combobox', { name: 'Class' }).click();
  await page.getByRole('option', { name: cls, exact: true }).click();
  const chart = page.getByTestId('trend-chart');
  // One small chart per series on one scale: bound and requested are equal here (5 GiB) and
  // would be one line in a single chart.
  for (const s of ['provisioned', 'bound', 'requested']) {
    await expect(chart.getByTestId(`trend-${s}`).locator('svg.recharts-surface')).toBeVisible();
    await expect(chart.getByTestId(`trend-${s}`).locator('.recharts-line-curve')).toHaveCount(1);
  }
  await expect(chart).toContainText('15 GiB provisioned, 5 GiB bound, 5 GiB requested');
  // Minutes of history: 5-minute buckets, said under the chart.
  await expect(chart).toContainText('Every 5 minutes since');
  await expect(page.getByTestId('forecast')).toContainText(/unknown|days|not filling|full/);
  await screenshot(page, 'capacity');

  // The y-axis ticks are short numbers in the charts' one unit, shown once beside each axis.
  const svg = chart.getByTestId('trend-provisioned').locator('svg.recharts-surface');
  await expect(svg.locator('text', { hasText: 'GiB' })).toHaveText(['GiB']);
  for (const t of ['0', '5', '10', '15']) await expect(svg.getByText(t, { exact: true })).toBeVisible();

  await page.getByRole('tab', { name: 'Per namespace' }).click();
  await expect(page.getByTestId('capacity-namespaces')).toContainText(ns);
  // The quota's limit for this class, in the namespace's row, with its forecast.
  await expect(page.getByTestId(`namespace-row-${ns}`).getByTestId('quota-forecast')).toContainText(
    new RegExp(`(unknown|days|less than a day|not filling|full now)[^]*${quota}: ${limit.replaceAll('.', '\\.')} 5 GiB of 6 GiB`),
  );
});

test("a developer sees the days until their namespace's quota is full, and nothing of another namespace", async ({ page }) => {
  const cls = uniqueName('capdev');
  const mine = `${cls}-room`;
  const theirs = `${cls}-theirs`;
  const limit = `${cls}.storageclass.storage.k8s.io/requests.storage`;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: mine, namespace: DEV_USER.namespace }, spec: { hard: { [limit]: '4Gi' } } }, DEV_USER.namespace);
  await createObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: theirs, namespace: DEV_USER.otherNamespace }, spec: { hard: { [limit]: '3Gi' } } }, DEV_USER.otherNamespace);
  await createObject(pvcManifest(uniqueName('capdev-claim'), DEV_USER.namespace, '1Gi', cls), DEV_USER.namespace);
  await createObject(pvcManifest(uniqueName('capdev-other'), DEV_USER.otherNamespace, '2Gi', cls), DEV_USER.otherNamespace);

  await signInAsDeveloper(page, '/capacity');
  await expect(page.getByRole('heading', { level: 1, name: 'Capacity' })).toBeVisible();
  await page.getByRole('tab', { name: 'Per namespace' }).click();
  const table = page.getByTestId('capacity-namespaces');
  await expect(table.getByTestId(`namespace-row-${DEV_USER.namespace}`).getByTestId('quota-forecast')).toContainText(`${mine}: ${limit} 1 GiB of 4 GiB`);
  await expect(table).not.toContainText(DEV_USER.otherNamespace);
  await expect(page.locator('body')).not.toContainText(theirs);
});

test('a class whose provisioner makes its volumes is "provisioned on demand", never "full now"', async ({ page }) => {
  const cls = uniqueName('cap-made');
  const ns = 'default';
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'stowage.io/host-path', parameters: { basePath: `/tmp/stowage-e2e/${cls}` } });
  const claim = uniqueName('cap-made');
  await createObject(pvcManifest(claim, ns, '1Gi', cls), ns);
  await expect
    .poll(async () => ((await getObject('PersistentVolumeClaim', claim, ns)).status as { phase?: string } | undefined)?.phase, { timeout: 20_000 })
    .toBe('Bound');
  await signInAsAdmin(page, '/capacity');
  const row = page.getByTestId(`class-row-${cls}`);
  await expect(row.getByTestId('bound')).toHaveText('1 GiB (100%)');
  await expect(row).toContainText('provisioned on demand');
  await expect(row).not.toContainText('full now');
});
