// A node's page, seeded through the API: a node of this test's own (no agent: it stays
// NotReady, so no other journey places anything on it), volumes pinned to it with claims, and
// a replicated volume whose replica it holds. The page shows its status, pools, disks and
// volumes by claim name, a page at a time; an admin's Drain… opens a preview and Drain
// cordons the node, Uncordon undoes it; a developer sees no Drain button.
import os from 'node:os';
import { createObject, deleteObject, getObject } from '../api';
import { expect, pvManifest, screenshot, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

const NS = 'default';
const THIS_NODE = process.env.STOWAGE_NODE_NAME || os.hostname();

function pinnedTo(node: string) {
  return { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } };
}

test('a node page shows status, pools, disks and its volumes by claim name; Drain previews, applies, and Uncordon undoes it', async ({ page }) => {
  test.setTimeout(90_000);
  const node = uniqueName('e2e-node');
  const cls = uniqueName('node-page');
  await createObject({ apiVersion: 'v1', kind: 'Node', metadata: { name: node, labels: { 'kubernetes.io/hostname': node, 'topology.kubernetes.io/zone': 'zone-e2e' } } });
  const pvs: string[] = [];
  const claims: string[] = [];
  try {
    // Three volumes on the node, each bound to a claim of the same name (pre-bound both ways).
    for (let i = 0; i < 3; i++) {
      const pv = uniqueName(`np-pv${i}`);
      const claim = uniqueName(`np-claim${i}`);
      const m = pvManifest(pv, { storageClassName: cls });
      await createObject({ ...m, spec: { ...m.spec, nodeAffinity: pinnedTo(node), claimRef: { namespace: NS, name: claim } } });
      await createObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim, namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls, volumeName: pv } }, NS);
      pvs.push(pv);
      claims.push(claim);
    }
    // A replicated volume active elsewhere whose replica this node holds.
    const replicated = uniqueName('np-replica');
    const rm = pvManifest(replicated, { storageClassName: cls });
    await createObject({
      ...rm,
      metadata: {
        ...rm.metadata,
        annotations: {
          'replication.stowage.io/active-node': THIS_NODE,
          'replication.stowage.io/epoch': '1',
          'replication.stowage.io/replicas': JSON.stringify([{ node, state: 'InSync', lastSyncTime: new Date().toISOString() }]),
        },
      },
    });
    pvs.push(replicated);
    await expect
      .poll(async () => ((await getObject('PersistentVolumeClaim', claims[0], NS)).status as { phase?: string } | undefined)?.phase, { message: 'the claim binds', timeout: 20_000 })
      .toBe('Bound');

    await signInAsAdmin(page, `/nodes/${encodeURIComponent(node)}`);
    const status = page.getByTestId('node-status');
    await expect(status.getByTestId('node-ready')).toHaveText('NotReady');
    await expect(status.getByTestId('node-zone')).toContainText('zone-e2e');
    await expect(status.getByTestId('node-heartbeat')).toContainText('never');

    // Its volumes by claim name, each linking to the volume; the replica with its state.
    const volumes = page.getByTestId('node-volumes');
    await expect(volumes).toContainText('Volumes on this node (4)');
    for (let i = 0; i < 3; i++) {
      const row = volumes.locator(`[data-testid="node-volume-row"][data-pv="${pvs[i]}"]`);
      await expect(row).toHaveAttribute('data-copy', 'only');
      await expect(row.getByRole('link', { name: `${NS}/${claims[i]}` })).toHaveAttribute('href', `/volumes/${pvs[i]}`);
    }
    const replicaRow = volumes.locator(`[data-testid="node-volume-row"][data-pv="${replicated}"]`);
    await expect(replicaRow).toHaveAttribute('data-copy', 'replica');
    await expect(replicaRow).toContainText(/in sync|s behind/);
    await expect(page.getByText(/and \d+ more/)).toHaveCount(0);
    // The segmented control's radios are visually hidden: a person clicks the label.
    await volumes.locator('label', { hasText: 'Replicas held' }).click();
    await expect(volumes.getByTestId('node-volume-row')).toHaveCount(1);

    // Disks (this node reports none: no agent) and the link to its disks page.
    await expect(page.getByTestId('node-disks-section')).toBeVisible();
    await expect(page.getByTestId('node-disks-section').getByTestId('no-disks')).toBeVisible();
    await screenshot(page, 'node-page');

    // Drain…: the preview, then Drain, the outcome, and Uncordon.
    await page.getByTestId('drain-open').click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('drain-moves')).toContainText('Moves to a replica (0)');
    await expect(dialog.getByTestId('drain-error')).toHaveCount(0);
    await screenshot(page, 'node-drain-preview');
    await dialog.getByTestId('confirm-drain').click();
    await expect(dialog.getByTestId('drain-outcome')).toContainText(`${node} is cordoned`);
    expect(((await getObject('Node', node)).spec as { unschedulable?: boolean } | undefined)?.unschedulable).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page.getByTestId('node-cordoned-status')).toBeVisible();
    await page.getByTestId('uncordon').click();
    await expect(page.getByTestId('uncordon')).toHaveCount(0);
    await expect.poll(async () => ((await getObject('Node', node)).spec as { unschedulable?: boolean } | undefined)?.unschedulable ?? false).toBe(false);
  } finally {
    for (const c of claims) await deleteObject('PersistentVolumeClaim', c, NS).catch(() => undefined);
    for (const v of pvs) await deleteObject('PersistentVolume', v).catch(() => undefined);
    await deleteObject('Node', node).catch(() => undefined);
  }
});

test("this machine's node page shows its pools and disks sections to an admin", async ({ page }) => {
  await signInAsAdmin(page, `/nodes/${encodeURIComponent(THIS_NODE)}`);
  await expect(page.getByTestId('node-status').getByTestId('node-ready')).toHaveText('Ready', { timeout: 20_000 });
  await expect(page.getByTestId('node-disks-section')).toBeVisible();
  await expect(page.getByTestId('node-volumes')).toBeVisible();
  await expect(page.getByTestId('drain-open')).toBeVisible();
});

test('a developer sees no Drain button on a node page', async ({ page }) => {
  await signInAsDeveloper(page, `/nodes/${encodeURIComponent(THIS_NODE)}`);
  // The page has answered (the node, or that a developer may not read nodes).
  await expect(page.getByTestId('detail-title').or(page.getByTestId('detail-error'))).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('drain-open')).toHaveCount(0);
  await expect(page.getByTestId('uncordon')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Drain/ })).toHaveCount(0);
});

test('Pools in the navigation leads to the pools per node, the raw capacity objects one switch away', async ({ page }) => {
  await signInAsAdmin(page, '/');
  await page.getByTestId('nav-pools').click();
  await expect(page).toHaveURL(/\/pools$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Pools' })).toBeVisible();
  await expect(page.getByTestId('pools-page')).toBeVisible();
  await page.getByTestId('pools-view').getByText('Capacity objects').click();
  await expect(page).toHaveURL(/\/pools\?view=objects$/);
});
