// The rough edges an outside walkthrough found, each seen fixed in the browser: claims that
// wait for a pod are counted apart from stuck ones (home page cards are links as a whole,
// the claims list filters them), Expand is shown disabled with why, the delete dialogs know
// a claim's consumers before offering Delete, a stale fix preview reloads on 409, the audit
// folds repeats and hides heartbeats, no column header or capacity is clipped at 1440 px.
import type { Page } from '@playwright/test';
import { createObject, defaultClasses, deleteObject, findObject, getObject, objectNames, setDefaultClass, updateObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { annBindingExplanation } from '../../server/domain/well-known/annotations';
import { expect, pvManifest, screenshotThemes, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

type Claim = Obj & { metadata: { annotations?: Record<string, string> }; status?: { phase?: string; conditions?: { type: string; reason?: string }[] } };

const claimOf = (name: string, namespace: string, cls: string, storage = '1Gi') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: cls },
});

test('a claim waiting for a pod is counted apart from stuck ones; the home cards are links', async ({ page }) => {
  const late = uniqueName('late');
  const manual = uniqueName('manual');
  const ns = DEV_USER.namespace;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: late }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' });
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: manual }, provisioner: 'kubernetes.io/no-provisioner' });
  const waiting = uniqueName('waits');
  const stuck = uniqueName('stuck');
  await createObject(claimOf(waiting, ns, late), ns);
  await createObject(claimOf(stuck, ns, manual), ns);
  await expect
    .poll(async () => (await getObject<Claim>('PersistentVolumeClaim', waiting, ns)).status?.conditions?.find((c) => c.type === 'Bindable')?.reason, { timeout: 15_000 })
    .toBe('WaitForFirstConsumer');

  await signInAsDeveloper(page, '/');
  const card = page.getByTestId('stat-waiting-claims');
  await expect(card).toHaveAttribute('href', '/claims?status=WaitingForPod');
  await expect.poll(async () => Number(await page.getByTestId('stat-waiting-claims-value').textContent())).toBeGreaterThan(0);
  await screenshotThemes(page, 'home-pending');
  // The whole card is the link: a click on its label opens the filtered list.
  await card.getByText('Waiting for a pod').click();
  await expect(page).toHaveURL(/\/claims\?status=WaitingForPod/);
  await expect(page.getByRole('link', { name: waiting, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: stuck, exact: true })).toHaveCount(0);
  await page.goto('/claims?status=Stuck');
  await expect(page.getByRole('link', { name: stuck, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: waiting, exact: true })).toHaveCount(0);
  // The claim page says it waits for a pod, without naming annotations.
  await page.goto(`/claims/${ns}/${waiting}`);
  await expect(page.getByTestId('pending-summary')).toContainText('Waiting for a pod');
  await expect(page.getByTestId('pending-summary')).not.toContainText('selected-node');
});

test('Expand is shown disabled with the reason when the class does not allow expansion', async ({ page }) => {
  const cls = uniqueName('fixed');
  const pv = uniqueName('fixed-pv');
  const claim = uniqueName('fixed-claim');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject(pvManifest(pv, { storage: '2Gi', storageClassName: cls }));
  await createObject(claimOf(claim, 'default', cls, '2Gi'), 'default');
  await expect.poll(async () => (await getObject<Claim>('PersistentVolumeClaim', claim, 'default')).status?.phase, { timeout: 15_000 }).toBe('Bound');
  await signInAsAdmin(page, `/claims/default/${claim}`);
  const disabled = page.getByTestId('expand-claim-disabled');
  await expect(disabled).toBeDisabled();
  await expect(disabled).toHaveAttribute('data-reason', `Class ${cls} does not allow expansion (allowVolumeExpansion is not true).`);
  await expect(page.getByTestId('claim-expansion')).toContainText('does not allow expansion');
  await screenshotThemes(page, 'claim-expand-disabled');
  // The volume's page: a phase line at the top, and the pods of its claim.
  await page.goto(`/volumes/${pv}`);
  await expect(page.getByTestId('volume-status-line')).toContainText(`Bound to claim default/${claim}`);
  await expect(page.getByTestId('claim-pods')).toContainText('No pod uses its claim');
  await screenshotThemes(page, 'volume-detail');
});

/** Holds every tRPC request that lists pods until `release` is called. */
async function holdPodLists(page: Page): Promise<() => void> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await page.route(
    (url) => url.pathname.includes('objects.list') && decodeURIComponent(url.search).includes('"kind":"Pod"'),
    async (route) => {
      await gate;
      await route.continue();
    },
  );
  return release;
}

test('the delete dialogs know who uses a claim before they offer Delete, one claim or many', async ({ page }) => {
  const run = uniqueName('del');
  const [used, free] = [`${run}-used`, `${run}-free`];
  const pod = `${run}-pod`;
  for (const name of [used, free]) await createObject({ ...claimOf(name, 'default', 'manual'), metadata: { name, namespace: 'default', labels: { 'del-e2e': run } } }, 'default');
  await createObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: used } }] } }, 'default');
  const schedule = `${run}-daily`;
  await createObject({ apiVersion: 'snapshot.stowage.io/v1', kind: 'SnapshotSchedule', metadata: { name: schedule, namespace: 'default' }, spec: { every: '24h', keep: 3, target: { claimName: free } } }, 'default');

  await signInAsAdmin(page, '/');
  const release = await holdPodLists(page);
  await page.goto(`/claims/default/${used}`);
  await expect(page.getByTestId('claim-pods')).toHaveAttribute('data-loading', 'true');
  await expect(page.getByTestId('claim-pods')).not.toContainText('Used by (0)');
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByTestId('delete-checking')).toBeVisible();
  await expect(page.getByTestId('confirm-delete')).toBeDisabled();
  release();
  await expect(page.getByTestId('delete-in-use')).toContainText(pod);
  await expect(page.getByTestId('confirm-delete')).toBeEnabled();
  await page.getByRole('button', { name: 'Cancel' }).click();

  await page.goto(`/claims?selector=del-e2e%3D${run}`);
  await expect(page.getByTestId('object-row')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'Select all loaded rows' }).check();
  await page.getByRole('button', { name: 'Delete…' }).click();
  await expect(page.getByTestId('bulk-delete-in-use')).toContainText(`default/${used}: used by ${pod}`);
  // The schedule that snapshots one of them stops, as the single dialog says.
  await expect(page.getByTestId('bulk-delete-stops')).toContainText(`Schedule default/${schedule} stops: there is no claim left to snapshot.`);
  await screenshotThemes(page, 'bulk-delete-claims');
  await page.getByRole('button', { name: 'Cancel' }).click();
});

test('a stale fix preview is made again on 409 instead of sending the same stale version', async ({ page }) => {
  const cls = uniqueName('manual');
  const good = uniqueName('hostpath');
  const claim = uniqueName('stale');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: good }, provisioner: 'stowage.io/host-path', parameters: { basePath: `/tmp/stowage-e2e-${good}` }, volumeBindingMode: 'WaitForFirstConsumer' });
  // Binds on first use: no pod uses the re-created claim, so nothing is made on disk.
  await createObject(claimOf(claim, 'default', cls), 'default');
  // The binder writes its explanation on the claim once the claim has waited its grace; wait
  // for that write, so the only change the preview misses is the one made below.
  await expect
    .poll(async () => (await getObject<Claim>('PersistentVolumeClaim', claim, 'default')).metadata.annotations?.[annBindingExplanation], { timeout: 15_000 })
    .toBeTruthy();
  await signInAsAdmin(page, `/claims/default/${claim}`);
  const fix = page.locator(`[data-testid="claim-fix"][data-kind="recreate-with-class"][data-target="${good}"]`);
  await fix.getByRole('button').click();
  await expect(page.getByTestId('fix-new-claim')).toBeVisible();
  // Someone changes the claim while the preview is open.
  const now = await getObject<Claim>('PersistentVolumeClaim', claim, 'default');
  await updateObject({ ...now, metadata: { ...now.metadata, labels: { touched: 'yes' } } });
  await page.getByTestId('fix-apply').click();
  await expect(page.getByTestId('fix-reloaded')).toBeVisible();
  await expect(page.getByTestId('fix-new-claim')).toContainText('touched');
  await screenshotThemes(page, 'fix-preview-reloaded');
  await page.getByTestId('fix-apply').click();
  await expect(page.getByTestId('fix-preview')).toBeHidden();
  await expect.poll(async () => (await getObject<Obj & { spec: { storageClassName?: string } }>('PersistentVolumeClaim', claim, 'default')).spec.storageClassName).toBe(good);
});

test('the audit folds repeats of one change into a count and hides node heartbeats unless asked', async ({ page }) => {
  const pv = uniqueName('audit-rep');
  await createObject(pvManifest(pv));
  for (let i = 0; i < 3; i++) {
    // The binder writes the volume's status meanwhile: read again on a conflict.
    await expect(async () => {
      const cur = await getObject('PersistentVolume', pv);
      await updateObject({ ...cur, metadata: { ...cur.metadata, annotations: { n: String(i) } } });
    }).toPass({ timeout: 10_000 });
  }
  await signInAsAdmin(page, `/audit?kind=PersistentVolume&name=${pv}&action=update`);
  const rows = page.getByTestId('audit-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-count', '3');
  await expect(rows.first().getByTestId('audit-repeat')).toContainText('×3, last');
  await screenshotThemes(page, 'audit-repeats');
  await page.goto('/audit');
  await page.getByRole('checkbox', { name: 'Show node heartbeats' }).check();
  await page.getByTestId('filter-apply').click();
  await expect(page).toHaveURL(/heartbeats=1/);
});

test('switching off the only default class asks first; no default is said on the class list', async ({ page }) => {
  // Whatever the run left marked default is put back afterwards; meanwhile one class of this
  // test's own is the only default, so the dialog is always exercised.
  const before = await defaultClasses();
  const cls = uniqueName('only-default');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' });
  try {
    expect(await setDefaultClass(cls, true)).toEqual({ defaults: [cls] });
    await signInAsAdmin(page, '/storage-classes');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByTestId('no-default-class')).toHaveCount(0);

    await page.goto(`/storage-classes/${cls}`);
    await expect(page.getByTestId('default-switch')).toBeChecked();
    await page.getByTestId('default-switch').click();
    await expect(page.getByTestId('only-default-warning')).toContainText(`${cls} is the only default class`);
    await page.getByRole('button', { name: 'Keep it the default' }).click();
    await expect(page.getByTestId('default-switch')).toBeChecked();
    expect(await defaultClasses()).toEqual([cls]);

    await page.getByTestId('default-switch').click();
    await page.getByTestId('confirm-no-default').click();
    await expect(page.getByTestId('default-switch')).not.toBeChecked();
    await expect.poll(defaultClasses).toEqual([]);
    await page.goto('/storage-classes');
    await expect(page.getByTestId('no-default-class')).toBeVisible();
  } finally {
    await deleteObject('StorageClass', cls);
    for (const name of before) await setDefaultClass(name, true);
  }
});

/** Header cells, and the cells of the capacity column, whose text does not fit (scrollWidth > clientWidth). */
async function clipped(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const overflows = (el: Element) => el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0;
    for (const table of document.querySelectorAll('[role="table"]')) {
      const headerRow = table.querySelector('[role="row"]');
      const headers = headerRow ? [...headerRow.querySelectorAll(':scope > [role="columnheader"]')] : [];
      headers.forEach((h, i) => {
        if ([h, ...h.querySelectorAll('*')].some(overflows)) out.push(`header ${h.textContent}`);
        if (!/capacity/i.test(h.textContent ?? '')) return;
        for (const row of [...table.querySelectorAll('[role="row"]')].slice(1)) {
          const cell = row.querySelectorAll(':scope > [role="cell"]')[i];
          if (cell && [cell, ...cell.querySelectorAll('*')].some(overflows)) out.push(`${h.textContent} cell ${cell.textContent}`);
        }
      });
    }
    return out;
  });
}

test('no clipped column header or capacity at 1440 px; capacities read as binary units', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const pv = uniqueName('big');
  await createObject(pvManifest(pv, { storage: '264212084Ki' }));
  await signInAsAdmin(page, `/volumes?q=${pv}`);
  const row = page.getByTestId('object-row').filter({ hasText: pv });
  await expect(row).toContainText('252 GiB');
  await expect(row.getByText('252 GiB')).toHaveAttribute('title', /264212084Ki/);
  for (const route of [`/volumes?q=${pv}`, '/claims', '/storage-classes', '/nodes', '/quotas', '/audit']) {
    await page.goto(route);
    await expect(page.locator('main')).toBeVisible();
    await expect(page.locator('main .mantine-Loader-root')).toHaveCount(0, { timeout: 15_000 });
    expect(await clipped(page), route).toEqual([]);
  }
  // A node's disks (from the API: the last page visited need not link to a node).
  const [node] = await objectNames('Node');
  expect(node, 'the server has a node').toBeTruthy();
  await page.goto(`/nodes/${encodeURIComponent(node)}/disks`);
  await expect(page.getByTestId('node-disks')).toBeVisible();
  expect(await clipped(page), `${node}/disks`).toEqual([]);
});

test('after a claim is deleted from its page, the page asks nothing more about it (no 404s)', async ({ page }) => {
  const name = uniqueName('gone');
  await createObject(claimOf(name, 'default', 'manual'), 'default');
  await signInAsAdmin(page, `/claims/default/${name}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  const notFound: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 404 && r.url().includes('/trpc/')) notFound.push(r.url());
  });
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByTestId('confirm-delete')).toBeEnabled();
  await page.getByTestId('confirm-delete').click();
  await expect.poll(async () => (await findObject('PersistentVolumeClaim', name, 'default')) === undefined).toBe(true);
  // The live stream brings the deletion; the page then settles. An observation window
  // for requests that should not be made, not a wait for something to happen.
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(3_000);
  expect(notFound).toEqual([]);
});

test('a filter that leaves one volume says "1 volume matches"; Escape closes the Columns popover', async ({ page }) => {
  const name = uniqueName('one-match');
  await createObject(pvManifest(name));
  await signInAsAdmin(page, '/volumes');
  await page.getByRole('textbox', { name: 'Filter by text' }).fill(name);
  await expect(page.getByTestId('object-row')).toHaveCount(1);
  await expect(page.getByTestId('list-count')).toHaveText('1 volume matches');

  await page.getByRole('button', { name: 'Columns' }).click();
  await expect(page.getByTestId('columns-popover')).toBeVisible();
  await page.getByTestId('columns-popover').getByRole('checkbox').nth(1).focus();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('columns-popover')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Columns' })).toHaveAttribute('aria-expanded', 'false');
});
