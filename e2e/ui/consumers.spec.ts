// Claims and their consumers as a person sees them: the delete dialog of a claim that a pod
// uses names the pod and says what the reclaim policy does to the data (and the claim then
// waits, Terminating, until the pod goes); a claim of an expandable class is expanded from
// its page and reaches the new size, its volume with it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createObject, deleteObject, findObject, getObject } from '../api';
import { expect, screenshot, signInAsAdmin, test, uniqueName } from '../helpers';

function hostPathClass(name: string, basePath: string, allowVolumeExpansion: boolean) {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name },
    provisioner: 'stowage.io/host-path',
    parameters: { basePath },
    reclaimPolicy: 'Delete',
    allowVolumeExpansion,
  };
}

function claimOf(name: string, cls: string, storage = '16Mi') {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: cls },
  };
}

async function bound(name: string): Promise<void> {
  await expect.poll(async () => (await getObject('PersistentVolumeClaim', name, 'default')).status, { timeout: 20_000 }).toMatchObject({ phase: 'Bound' });
}

test('deleting an in-use claim: the dialog names its pods and the reclaim policy; the claim waits for the pod', async ({ page }) => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-consumers-'));
  const cls = uniqueName('hp-del');
  const claim = uniqueName('used-claim');
  const pod = uniqueName('user-pod');
  try {
    await createObject(hostPathClass(cls, base, false));
    await createObject(claimOf(claim, cls));
    await bound(claim);
    await createObject({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: 'default' },
      spec: {
        containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }],
      },
    });
    // In use means by a pod placed on a node (upstream's rule): wait for placement.
    await expect.poll(async () => (await getObject<{ spec?: { nodeName?: string } }>('Pod', pod, 'default')).spec?.nodeName, { timeout: 20_000 }).toBeTruthy();

    await signInAsAdmin(page, `/claims/default/${claim}`);
    const users = page.getByTestId('claim-pods');
    await expect(users).toContainText('Used by (1)');
    await expect(users.getByRole('link', { name: pod })).toBeVisible();

    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('delete-in-use')).toContainText(`In use by pod ${pod}`);
    await expect(dialog.getByTestId('delete-reclaim')).toContainText('has reclaim policy Delete');
    await expect(dialog.getByTestId('delete-reclaim')).toContainText('the volume and all data on it are deleted');
    await screenshot(page, 'consumers-delete-in-use');
    await dialog.getByTestId('confirm-delete').click();

    // Held by kubernetes.io/pvc-protection while the pod exists.
    await expect(page.getByTestId('terminating')).toBeVisible({ timeout: 10_000 });
    expect((await getObject('PersistentVolumeClaim', claim, 'default')).metadata).toMatchObject({ finalizers: ['kubernetes.io/pvc-protection'] });
    await deleteObject('Pod', pod, 'default');
    await expect.poll(async () => findObject('PersistentVolumeClaim', claim, 'default'), { timeout: 20_000 }).toBeUndefined();
  } finally {
    await deleteObject('Pod', pod, 'default').catch(() => {});
    await deleteObject('PersistentVolumeClaim', claim, 'default').catch(() => {});
    await deleteObject('StorageClass', cls).catch(() => {});
    rmSync(base, { recursive: true, force: true });
  }
});

test('expanding a claim from its page: minimum is the current size, and the claim reaches the new size', async ({ page }) => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-expand-'));
  const cls = uniqueName('hp-grow');
  const claim = uniqueName('growing');
  try {
    await createObject(hostPathClass(cls, base, true));
    await createObject(claimOf(claim, cls, '16Mi'));
    await bound(claim);

    await signInAsAdmin(page, `/claims/default/${claim}`);
    await page.getByTestId('expand-claim').click();
    const size = page.getByTestId('expand-size');
    // The dialog starts on the current size with its unit; a smaller one is refused in human units.
    await expect(size).toHaveValue('16');
    await expect(page.getByTestId('expand-size-unit')).toHaveValue('Mi');
    await size.fill('8');
    await expect(page.getByText('Must be larger than the current 16 MiB: claims only grow')).toBeVisible();
    await expect(page.getByTestId('confirm-expand')).toBeDisabled();
    await size.fill('48');
    await page.getByTestId('confirm-expand').click();

    const summary = page.getByTestId('summary');
    await expect(summary.locator('[data-label="Requested"]')).toContainText('48 MiB');
    await expect(summary.locator('[data-label="Capacity"]')).toContainText('48 MiB', { timeout: 20_000 });
    await expect(page.getByTestId('claim-expansion')).toHaveAttribute('data-stage', 'none');
    await screenshot(page, 'consumers-expanded');
    const c = await getObject('PersistentVolumeClaim', claim, 'default');
    const pv = await getObject('PersistentVolume', (c as any).spec.volumeName);
    expect((pv as any).spec.capacity.storage).toBe('48Mi');
    expect((c as any).status.allocatedResources).toEqual({ storage: '48Mi' });
  } finally {
    await deleteObject('PersistentVolumeClaim', claim, 'default').catch(() => {});
    await deleteObject('StorageClass', cls).catch(() => {});
    rmSync(base, { recursive: true, force: true });
  }
});
