// "Why is my claim Pending?": the claim's page says why in plain sentences, names the
// nearest volume with every constraint it fails, and turns Bound live once a matching
// volume appears.
import { createObject } from '../api';
import { DEV_USER } from '../env';
import { expect, pvManifest, screenshot, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

// The volumes and the claim share a class of their own (that provisions nothing), so no
// claim left Pending by another test can take these volumes.
function claimManifest(name: string, storage: string, accessModes: string[], storageClassName: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes, resources: { requests: { storage } }, storageClassName },
  };
}

function volumeManifest(name: string, storage: string, accessModes: string[], storageClassName: string) {
  const pv = pvManifest(name, { storage, storageClassName });
  return { ...pv, spec: { ...pv.spec, accessModes } };
}

test("a Pending claim's page explains why, and turns Bound live when a matching volume appears", async ({ page }) => {
  const small = uniqueName('pv-small');
  const rwo = uniqueName('pv-rwo');
  const claim = uniqueName('claim-why');
  const cls = uniqueName('static');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject(volumeManifest(small, '1Gi', ['ReadWriteOnce'], cls));
  await createObject(volumeManifest(rwo, '10Gi', ['ReadWriteOnce'], cls));
  await createObject(claimManifest(claim, '5Gi', ['ReadWriteMany'], cls));

  await signInAsAdmin(page, `/claims/default/${claim}`);
  const why = page.getByTestId('pending-explanation');
  await expect(why).toBeVisible();
  await expect(why).toHaveAttribute('data-source', 'explanation', { timeout: 15_000 });
  await expect(page.getByTestId('pending-summary')).toContainText('No available volume matches this claim');
  await expect(why.getByTestId('pending-candidate').first()).toBeVisible();
  await screenshot(page, 'claim-pending');
  const candidate = why.locator(`[data-testid="pending-candidate"][data-name="${small}"]`);
  await expect(candidate).toBeVisible();
  await expect(candidate.getByRole('link', { name: small })).toHaveAttribute('href', `/volumes/${small}`);
  const reasons = candidate.getByTestId('candidate-reasons').getByRole('listitem');
  await expect(reasons.filter({ hasText: /access modes RWO do not include the requested RWX/i })).toHaveCount(1);
  await expect(reasons.filter({ hasText: /capacity 1Gi is less than the requested 5Gi/i })).toHaveCount(1);
  // Nearest first: a volume that fails one constraint comes before one that fails two.
  const big = why.locator(`[data-testid="pending-candidate"][data-name="${rwo}"]`);
  await expect(big.getByRole('listitem')).toHaveText([/access modes RWO do not include the requested RWX/i]);
  await expect(why.getByTestId('pending-candidate').first()).toHaveAttribute('data-name', rwo);
  await expect(page.getByTestId('evaluated-at')).toContainText(/Evaluated \d+s ago/);

  // The claims list gives the same summary as a hint on the Pending badge.
  await page.goto(`/claims?namespace=default&q=${claim}`);
  const hint = page.getByTestId('object-row').filter({ hasText: claim }).getByTestId('pending-hint');
  await expect(hint).toHaveAttribute('aria-label', /No available volume matches this claim/);
  await hint.hover();
  await expect(page.getByRole('tooltip')).toBeVisible();
  await expect(page.getByRole('tooltip')).toContainText('No available volume matches this claim');

  // A matching volume appears (an administrator adds one): the open page turns Bound by itself.
  await page.getByRole('link', { name: claim, exact: true }).click();
  await expect(why).toBeVisible();
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
  const match = uniqueName('pv-match');
  await createObject(volumeManifest(match, '5Gi', ['ReadWriteMany'], cls));
  const bound = page.getByTestId('bound-volume');
  await expect(bound).toBeVisible({ timeout: 15_000 });
  await expect(bound.getByRole('link', { name: match })).toHaveAttribute('href', `/volumes/${match}`);
  await expect(why).toHaveCount(0);
  await expect(page.getByTestId('summary').getByTestId('status-badge')).toHaveText('Bound');
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
});

test('a developer sees why their claim is Pending: its class does not exist', async ({ page }) => {
  const claim = uniqueName('claim-noclass');
  const cls = uniqueName('missing-class');
  const manifest = claimManifest(claim, '1Gi', ['ReadWriteOnce'], cls);
  await createObject({ ...manifest, metadata: { name: claim, namespace: DEV_USER.namespace }, spec: { ...manifest.spec, storageClassName: cls } });
  await signInAsDeveloper(page, `/claims/${DEV_USER.namespace}/${claim}`);
  await expect(page.getByTestId('pending-summary')).toContainText(`StorageClass "${cls}" does not exist`, { timeout: 15_000 });
  await expect(page.getByTestId('pending-reason')).toHaveText('StorageClassNotFound');
  await expect(page.getByTestId('claim-provisioning')).toHaveCount(0);
});
