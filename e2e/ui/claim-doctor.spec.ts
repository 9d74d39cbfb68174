// The claim page's doctor and capacity: a developer sees why a claim is Pending, what they
// may not fix themselves and that its usage is unknown; an admin uses "Create a matching
// volume", finds the volume form filled in from the claim, creates the volume and the claim
// binds. A claim of a host-path class shows the used bytes its plugin measured.
import AxeBuilder from '@axe-core/playwright';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createObject, getObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, screenshot, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

test('an admin fixes a Pending claim with the prefilled "Create a matching volume", and it binds', async ({ page }) => {
  const cls = uniqueName('manual');
  const claim = uniqueName('data');
  const ns = DEV_USER.namespace;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '3Gi' } }, storageClassName: cls, selector: { matchLabels: { tier: 'gold' } } },
  });

  // The developer: Pending and why, capacity requested with usage unknown, and no volume of their own to create.
  await signInAsDeveloper(page, `/claims/${ns}/${claim}`);
  await expect(page.getByTestId('pending-explanation')).toBeVisible();
  await expect(page.getByTestId('capacity-requested')).toContainText('3 GiB');
  await expect(page.getByTestId('capacity-used')).toContainText('unknown');
  const devFix = page.locator('[data-testid="claim-fix"][data-kind="create-volume"]');
  await expect(devFix).toHaveAttribute('data-allowed', 'false');
  await expect(devFix).toContainText('only administrators create volumes');

  // The admin: the fix opens the volume form filled in from the claim.
  await page.context().clearCookies();
  await signInAsAdmin(page, `/claims/${ns}/${claim}`);
  await expect(page.getByRole('heading', { level: 1, name: claim })).toBeVisible();
  await expect(page.locator('[data-testid="claim-fix"][data-kind="create-volume"]')).toHaveAttribute('data-allowed', 'true');
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((x) => x.target.join(' ')).join(', ')}`)).toEqual([]);
  await screenshot(page, 'claim-doctor');
  await page.getByTestId('fix-create-volume').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create volume' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Capacity' })).toHaveValue('3');
  await expect(page.getByRole('combobox', { name: 'Unit' })).toHaveValue('Gi');
  await expect(page.getByRole('combobox', { name: 'Storage class' })).toHaveValue(cls);
  await expect(page.getByTestId('volume-labels')).toHaveValue('tier=gold');
  await expect(page.getByTestId('volume-reserved-for')).toHaveValue(`${ns}/${claim}`);
  const pvName = `${claim}-pv`;
  await expect(page.getByRole('textbox', { name: 'Name' })).toHaveValue(pvName);
  await page.getByRole('textbox', { name: 'Path on the host' }).fill(`/srv/stowage-e2e/${pvName}`);
  await page.getByTestId('save-volume').click();
  await expect(page).toHaveURL(new RegExp(`/volumes/${pvName}$`));

  await page.goto(`/claims/${ns}/${claim}`);
  await expect(page.getByTestId('bound-volume')).toHaveAttribute('data-volume', pvName, { timeout: 15_000 });
  await expect(page.getByTestId('capacity-provisioned')).toContainText('3 GiB');
  await expect(page.getByTestId('claim-doctor')).toHaveCount(0);
  const saved = await getObject<Obj & { spec: { volumeName?: string } }>('PersistentVolumeClaim', claim, ns);
  expect(saved.spec.volumeName).toBe(pvName);
});

test('a claim of a host-path class shows the used bytes its plugin measured', async ({ page }) => {
  test.setTimeout(150_000);
  const base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-usage-'));
  try {
    const cls = uniqueName('hostpath');
    const claim = uniqueName('used');
    await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'stowage.io/host-path', parameters: { basePath: base }, reclaimPolicy: 'Delete' });
    await createObject({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } }, storageClassName: cls },
    });
    await signInAsAdmin(page, `/claims/default/${claim}`);
    await expect(page.getByTestId('bound-volume')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('capacity-provisioned')).toContainText('64 MiB');
    // Measured when the volume appears (or on the next periodic pass).
    await expect(page.getByTestId('capacity-used')).toHaveAttribute('data-known', 'true', { timeout: 100_000 });
    await expect(page.getByTestId('capacity-bar')).toBeVisible();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
