// Deleting a claim says what it takes with it: its snapshots stay (and restore to a new
// claim), a schedule that snapshots it stops (and can be paused from the dialog); after the
// delete the snapshot's page marks its source claim as deleted instead of linking to it.
import { createObject, findObject, getObject, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, pvcManifest, signInAsAdmin, test, uniqueName } from '../helpers';

const NS = DEV_USER.namespace;

test('the claim delete dialog names what stays and what stops, and the snapshot page marks the claim deleted', async ({ page }) => {
  const cls = uniqueName('dep');
  const claim = uniqueName('dep-claim');
  const snap = `${claim}-by-hand`;
  const schedule = `${claim}-daily`;
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  await createObject(pvcManifest(claim, NS, '1Gi', cls), NS);
  await createObject({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: snap, namespace: NS }, spec: { source: { persistentVolumeClaimName: claim } } }, NS);
  await createObject({ apiVersion: 'snapshot.stowage.io/v1', kind: 'SnapshotSchedule', metadata: { name: schedule, namespace: NS }, spec: { every: '24h', keep: 3, target: { claimName: claim } } }, NS);

  await signInAsAdmin(page, `/claims/${NS}/${claim}`);
  await expect(page.getByRole('heading', { level: 1, name: claim })).toBeVisible();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('delete-stays')).toContainText(`Snapshot ${snap} stays: it can still be restored to a new claim.`);
  await expect(dialog.getByTestId('delete-stops')).toContainText(`Schedule ${schedule} stops: there is no claim left to snapshot.`);

  // Paused from the dialog: the schedule is suspended, and the dialog now says it stays paused.
  await dialog.getByTestId('pause-schedules').click();
  await expect.poll(async () => (await getObject<Obj & { spec: { suspend?: boolean } }>('SnapshotSchedule', schedule, NS)).spec.suspend).toBe(true);
  await expect(dialog.getByTestId('delete-stays')).toContainText(`Schedule ${schedule} is paused and stays so.`);
  await expect(dialog.getByTestId('delete-stops')).toHaveCount(0);

  await dialog.getByTestId('confirm-delete').click();
  await expect.poll(() => findObject('PersistentVolumeClaim', claim, NS), { timeout: 15_000 }).toBeUndefined();
  expect(await findObject('VolumeSnapshot', snap, NS)).toBeDefined();

  await page.goto(`/snapshots/${NS}/${snap}`);
  const source = page.getByTestId('source-claim');
  await expect(source).toHaveAttribute('data-gone', 'true');
  await expect(source).toContainText(`${claim} (deleted`);
  await expect(source.getByRole('link')).toHaveCount(0);
});

test('the storage class delete dialog says which claims and volumes name it, and what stops', async ({ page }) => {
  const cls = uniqueName('dep-class');
  const claim = uniqueName('dep-pending');
  const pv = uniqueName('dep-pv');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner' });
  // Too big for the volume: the claim stays Pending.
  await createObject(pvcManifest(claim, NS, '50Gi', cls), NS);
  await createObject({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: pv }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: cls, hostPath: { path: `/tmp/${pv}` } } });

  await signInAsAdmin(page, `/storage-classes/${cls}`);
  await expect(page.getByRole('heading', { level: 1, name: cls })).toBeVisible();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('delete-stays')).toContainText(`Its 1 volume (${pv}) stays`);
  await expect(dialog.getByTestId('delete-stops')).toContainText(`1 Pending claim of this class will not get a volume: it stays Pending until a class named ${cls} exists again.`);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  expect(await findObject('StorageClass', cls)).toBeDefined();
});
