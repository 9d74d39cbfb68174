// Dynamic provisioning as a person sees it: a StorageClass with the in-tree host-path
// provisioner makes a real directory for a claim requested in the dashboard; the claim
// turns Bound on its page; deleting it (reclaim policy Delete) takes the volume and the
// directory away. And a class's page masks parameters that name secrets.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createObject, deleteObject, getObject } from '../api';
import { expect, fillCreateForm, pvManifest, screenshot, signInAsAdmin, test, toYaml, uniqueName } from '../helpers';

test('a class provisions a host-path volume for a claim made in the dashboard, and deleting the claim removes it', async ({ page }) => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-hostpath-'));
  try {
    const cls = uniqueName('hostpath');
    const claim = uniqueName('claim-prov');
    await createObject({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: cls },
      provisioner: 'stowage.io/host-path',
      parameters: { basePath: base },
      reclaimPolicy: 'Delete',
    });

    await signInAsAdmin(page, `/storage-classes/${cls}`);
    await expect(page.locator('[data-testid="parameter-row"][data-key="basePath"]')).toContainText(base);
    await expect(page.getByTestId('summary')).toContainText('stowage.io/host-path');

    await fillCreateForm(
      page,
      toYaml({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claim, namespace: 'default' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } }, storageClassName: cls },
      }),
      'PersistentVolumeClaim',
    );
    await expect(page).toHaveURL(new RegExp(`/claims/default/${claim}$`));
    const uid = (await getObject('PersistentVolumeClaim', claim, 'default')).metadata.uid as string;
    const pvName = `pvc-${uid}`;

    await expect(page.getByTestId('claim-provisioning')).toHaveAttribute('data-provisioner', 'stowage.io/host-path', { timeout: 15_000 });
    const bound = page.getByTestId('bound-volume');
    await expect(bound).toBeVisible({ timeout: 20_000 });
    await expect(bound).toHaveAttribute('data-volume', pvName);
    await expect(page.getByTestId('claim-provisioning')).toContainText('Provisioned by stowage.io/host-path');
    await expect(page.getByTestId('provisioned-volume').getByRole('link', { name: pvName })).toBeVisible();
    await expect(page.getByTestId('provisioning-message')).toContainText(/Successfully provisioned|provisioned/i);

    // The volume's page shows the real directory, who made it and what deleting does.
    await bound.getByRole('link', { name: pvName }).click();
    await expect(page).toHaveURL(new RegExp(`/volumes/${pvName}$`));
    const asset = page.getByTestId('volume-asset');
    await expect(asset).toHaveAttribute('data-source', 'hostPath');
    const dir = (await asset.locator('[data-testid="asset-field"][data-label="Path"]').textContent()) ?? '';
    expect(dir.startsWith(`${base}/`)).toBe(true);
    expect(existsSync(dir)).toBe(true);
    await expect(asset.getByTestId('provisioned-by')).toHaveText('stowage.io/host-path');
    await expect(asset.getByTestId('reclaim-policy')).toHaveText('Delete');
    await expect(asset.getByTestId('pinned-nodes').getByRole('link')).toHaveCount(1);
    await screenshot(page, 'volume-provisioned');

    // Delete the claim; the volume goes away from the volumes list, and its directory with it.
    await page.goto(`/claims/default/${claim}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('confirm-delete').click();
    await expect(page).toHaveURL(/\/claims$/);
    await page.goto(`/volumes?q=${pvName}`);
    await expect(page.getByTestId('live-indicator')).toHaveAttribute('data-status', 'live');
    await expect(page.getByRole('link', { name: pvName, exact: true })).toHaveCount(0, { timeout: 20_000 });
    await expect.poll(() => existsSync(dir), { timeout: 10_000 }).toBe(false);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('a claim whose class cannot provision it shows the provisioner\'s failure on its page', async ({ page }) => {
  const cls = uniqueName('hostpath-bad');
  const claim = uniqueName('claim-fail');
  await createObject({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: cls },
    provisioner: 'stowage.io/host-path',
    // A class with parameters the plugin cannot use is refused when written; a claim it
    // cannot serve (a raw block device from a directory provisioner) fails at provisioning.
    parameters: { basePath: path.join(os.tmpdir(), 'stowage-e2e-never') },
  });
  await createObject({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls, volumeMode: 'Block' },
  });
  await signInAsAdmin(page, `/claims/default/${claim}`);
  const panel = page.getByTestId('claim-provisioning');
  await expect(panel).toContainText('Provisioning by stowage.io/host-path', { timeout: 15_000 });
  await expect(panel).toContainText('ProvisioningFailed', { timeout: 15_000 });
  await expect(page.getByTestId('provisioning-message')).toContainText('volumeMode Block');
  // The failure is the headline of "Why is this claim Pending?", not the binder's "waiting for the provisioner".
  await expect(page.getByTestId('pending-reason')).toHaveText('ProvisioningFailed');
  await expect(page.getByTestId('pending-summary')).toContainText('Provisioning by stowage.io/host-path is failing');
  await expect(page.getByTestId('provisioned-volume')).toHaveCount(0);
});

test("a class's page masks secret parameters and lists the claims that use it", async ({ page }) => {
  const cls = uniqueName('csi-class');
  const claim = uniqueName('claim-of-class');
  const secret = `s3cr3t-${uniqueName('v')}`;
  await createObject({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: cls },
    provisioner: 'example.com/csi',
    parameters: { 'csi.storage.k8s.io/provisioner-secret-name': secret, adminPassword: secret, type: 'gp3' },
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
    mountOptions: ['noatime'],
  });
  await createObject({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls },
  });

  await signInAsAdmin(page, `/storage-classes/${cls}`);
  const params = page.getByTestId('class-parameters');
  await expect(params.locator('[data-key="type"]')).toContainText('gp3');
  for (const key of ['csi.storage.k8s.io/provisioner-secret-name', 'adminPassword']) {
    const row = params.locator(`[data-testid="parameter-row"][data-key="${key}"]`);
    await expect(row).toHaveAttribute('data-masked', 'true');
    await expect(row.getByTestId('masked-value')).toHaveText('••••••');
  }
  const summary = page.getByTestId('summary');
  await expect(summary).toContainText('Retain');
  await expect(summary).toContainText('WaitForFirstConsumer');
  await expect(summary).toContainText('allowed');
  await expect(summary).toContainText('noatime');
  await expect(page.getByTestId('related-claims').getByRole('link', { name: `default/${claim}` })).toBeVisible();
  await expect(page.getByTestId('related-volumes')).toContainText('(0)');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await expect(page.getByTestId('object-yaml')).toContainText('provisioner-secret-name');
  await expect(page.locator('body')).not.toContainText(secret);
  await screenshot(page, 'storage-class-detail');
});

test('a Retain volume whose claim is deleted says it is Released, and why, on its page', async ({ page }) => {
  const pv = uniqueName('pv-retain');
  const claim = uniqueName('claim-retain');
  const cls = uniqueName('retain');
  await createObject(pvManifest(pv, { storage: '1Gi', storageClassName: cls }));
  await createObject({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls, volumeName: pv },
  });
  await signInAsAdmin(page, `/volumes/${pv}`);
  await expect(page.getByTestId('summary').getByTestId('status-badge')).toHaveText('Bound', { timeout: 15_000 });
  await expect(page.getByTestId('volume-phase-alert')).toHaveCount(0);
  await expect(page.getByTestId('volume-asset').getByTestId('reclaim-policy')).toHaveText('Retain');

  await deleteObject('PersistentVolumeClaim', claim, 'default');
  const alert = page.getByTestId('volume-phase-alert');
  await expect(alert).toHaveAttribute('data-phase', 'Released', { timeout: 15_000 });
  await expect(alert).toContainText('This volume is Released');
  await expect(page.getByTestId('volume-phase-message')).toContainText(claim);
});
