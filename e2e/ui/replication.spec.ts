// Replicated pool volumes in the dashboard, from what a replicated PV says of its copies
// (its replication.stowage.io/ annotations, seeded through the API as an admin: the
// replication controller leaves a PV it has no record of alone): the REPLICAS column of the
// volumes and claims lists with each copy in its tooltip, the "Replicas" card of the volume
// and claim pages (live), and the home page's attention entry linking to the volume.
import { createObject, getObject, updateObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, pvManifest, signInAsAdmin, test, uniqueName } from '../helpers';

const run = uniqueName('repl');
const ns = DEV_USER.namespace;
const cls = `${run}-class`;
const volume = `${run}-pv`;
const plain = `${run}-plain`;
const claim = `${run}-claim`;
const nodeA = `${run}-node-a`;
const nodeB = `${run}-node-b`;
const nodeC = `${run}-node-c`;

const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

function replicationAnnotations(replicas: unknown[], epoch = 3): Record<string, string> {
  return {
    'replication.stowage.io/active-node': nodeA,
    'replication.stowage.io/epoch': String(epoch),
    'replication.stowage.io/replicas': JSON.stringify(replicas),
  };
}

test.describe('replicated volumes in the dashboard', () => {
  test.beforeAll(async () => {
    await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
    const pv = pvManifest(volume, { storage: '2Gi', storageClassName: cls });
    await createObject({
      ...pv,
      metadata: {
        ...pv.metadata,
        annotations: replicationAnnotations([
          { node: nodeB, state: 'Behind', lastSyncTime: secondsAgo(95), error: 'connection refused' },
          { node: nodeC, state: 'Rebuilding', progress: { doneBytes: '400', totalBytes: '1000' } },
        ]),
      },
    });
    // Not replicated, of another class (the claim must bind the replicated one).
    await createObject(pvManifest(plain, { storage: '1Gi' }));
    await createObject(pvcManifest(claim, ns, '2Gi', cls), ns);
    await expect
      .poll(async () => {
        const c = await getObject('PersistentVolumeClaim', claim, ns);
        return `${(c.status as { phase?: string } | undefined)?.phase}/${(c.spec as { volumeName?: string }).volumeName}`;
      }, { message: `claim ${claim} binds ${volume}`, timeout: 15_000 })
      .toBe(`Bound/${volume}`);
  });

  test('the REPLICAS column of the volumes and claims lists, with each copy in its tooltip', async ({ page }) => {
    // Wide enough for every column: REPLICAS is the first to hide when the table is narrow.
    await page.setViewportSize({ width: 1680, height: 900 });
    await signInAsAdmin(page, `/volumes?q=${run}`);
    await expect(page.getByRole('columnheader', { name: /REPLICAS/ })).toBeVisible();
    const row = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: volume, exact: true }) });
    const cell = row.getByTestId('replicas-cell');
    await expect(cell).toHaveText(/^1\/3 · behind \d+ s$/);
    await expect(cell).toHaveAttribute('data-tone', 'warn');
    await cell.hover();
    const tip = page.getByRole('tooltip');
    await expect(tip).toContainText(`${nodeA}: active (epoch 3)`);
    await expect(tip).toContainText(new RegExp(`${nodeB}: behind \\d+ s`));
    await expect(tip).toContainText(`${nodeC}: rebuilding 40 %`);
    const other = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: plain, exact: true }) });
    await expect(other.getByTestId('replicas-cell')).toHaveText('—');

    // The claim's column is its bound volume's.
    await page.goto(`/claims?namespace=${ns}&q=${claim}`);
    const claimRow = page.getByTestId('object-row').filter({ has: page.getByRole('link', { name: claim, exact: true }) });
    await expect(claimRow.getByTestId('replicas-cell')).toHaveText(/^1\/3 · behind \d+ s$/);
  });

  test('at 1280x800 the REPLICAS column hides first rather than overflow', async ({ page }) => {
    await signInAsAdmin(page, `/volumes?q=${run}`);
    const frame = page.getByTestId('object-table-frame');
    await expect(frame).toHaveAttribute('data-layout', 'table');
    await expect(frame).toHaveAttribute('data-hidden-columns', /REPLICAS/);
    await expect(page.getByRole('columnheader', { name: /STATUS/ })).toBeVisible();
  });

  test('the Replicas card of the volume page, live, and of the claim page', async ({ page }) => {
    await signInAsAdmin(page, `/volumes/${volume}`);
    const card = page.getByTestId('replicas-card');
    await expect(card).toBeVisible();
    await expect(card.getByTestId('replicas-active')).toHaveAttribute('data-node', nodeA);
    await expect(card.getByTestId('replicas-active')).toContainText('epoch 3');
    const b = card.locator(`[data-testid="replica-row"][data-node="${nodeB}"]`);
    await expect(b).toHaveAttribute('data-state', 'Behind');
    await expect(b.getByTestId('replica-state')).toHaveText('behind');
    await expect(b.getByTestId('replica-behind')).toHaveText(/^behind \d+ s$/);
    await expect(b.getByTestId('replica-error')).toHaveText('connection refused');
    await b.getByTestId('replica-behind').hover();
    await expect(page.getByRole('tooltip')).toContainText('data-loss window');
    const c = card.locator(`[data-testid="replica-row"][data-node="${nodeC}"]`);
    await expect(c).toHaveAttribute('data-state', 'Rebuilding');
    await expect(c.getByRole('progressbar', { name: /40 %/ })).toBeVisible();

    // Live: the replica catches up, the card follows without a reload.
    const pv = await getObject('PersistentVolume', volume);
    const next: Obj = {
      ...pv,
      metadata: {
        ...pv.metadata,
        annotations: {
          ...(pv.metadata.annotations as Record<string, string>),
          ...replicationAnnotations([
            { node: nodeB, state: 'InSync', lastSyncTime: secondsAgo(3) },
            { node: nodeC, state: 'Rebuilding', progress: { doneBytes: '400', totalBytes: '1000' } },
          ]),
        },
      },
    };
    await updateObject(next);
    await expect(b).toHaveAttribute('data-state', 'InSync');
    await expect(b.getByTestId('replica-state')).toHaveText('in sync');
    await expect(b.getByTestId('replica-error')).toHaveCount(0);

    // The claim's page shows its volume's copies.
    await page.goto(`/claims/${ns}/${claim}`);
    const claimCard = page.getByTestId('replicas-card');
    await expect(claimCard.getByTestId('replicas-active')).toHaveAttribute('data-node', nodeA);
    await expect(claimCard.locator(`[data-testid="replica-row"][data-node="${nodeB}"]`)).toHaveAttribute('data-state', 'InSync');
    await expect(claimCard.locator(`[data-testid="replica-row"][data-node="${nodeC}"]`)).toHaveAttribute('data-state', 'Rebuilding');

    // A volume that is not replicated has no card.
    await page.goto(`/volumes/${plain}`);
    await expect(page.getByTestId('detail-title')).toHaveText(plain);
    await expect(page.getByTestId('replicas-card')).toHaveCount(0);
  });

  test('a replica behind shows on the home page, linking to its volume', async ({ page }) => {
    const pv = await getObject('PersistentVolume', volume);
    await updateObject({
      ...pv,
      metadata: {
        ...pv.metadata,
        annotations: { ...(pv.metadata.annotations as Record<string, string>), ...replicationAnnotations([{ node: nodeB, state: 'Unreachable', lastSyncTime: secondsAgo(200) }, { node: nodeC, state: 'Behind', lastSyncTime: secondsAgo(120) }]) },
      },
    });
    await signInAsAdmin(page, '/');
    const entries = page.locator(`[data-testid="replica-attention"][data-volume="${volume}"]`);
    await expect(entries).toHaveCount(2);
    // Worst first.
    await expect(entries.nth(0)).toHaveAttribute('data-node', nodeB);
    await expect(entries.nth(0)).toContainText(/unreachable, last synced \d+ s ago/);
    await expect(entries.nth(1)).toContainText(new RegExp(`the copy on ${nodeC} is behind \\d+ s`));
    await entries.nth(0).getByRole('link', { name: volume, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/volumes/${volume}$`));
    await expect(page.getByTestId('replicas-card')).toBeVisible();
  });
});
