// Snapshots as a developer uses them: take one of a claim on its Snapshots tab, see it in the
// claim's list and on the Snapshots page, schedule more; restore one to a new claim from the
// claim form and see the restored claim Bound with the snapshot's size.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createObject, getObject, setDefaultSnapshotClass, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, screenshot, screenshotThemes, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

const NS = DEV_USER.namespace;
type Claim = Obj & { status?: { phase?: string; capacity?: { storage?: string } }; spec: { dataSource?: unknown; resources: { requests: { storage: string } } } };

/** A host-path class with a snapshot class for its driver, and a Bound claim of it (made by the admin's API). */
async function boundClaim(base: string, size = '64Mi'): Promise<{ cls: string; claim: string }> {
  const cls = uniqueName('snap-hp');
  const claim = uniqueName('snap-src');
  await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'stowage.io/host-path', parameters: { basePath: base }, reclaimPolicy: 'Delete' });
  // The snapshot class the claim's snapshots get: its driver's one default (as an admin sets it).
  const vsc = uniqueName('vsc');
  await createObject({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: vsc }, driver: 'stowage.io/host-path', deletionPolicy: 'Delete' });
  expect(await setDefaultSnapshotClass(vsc, true)).toEqual({ defaults: [vsc] });
  await createObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim, namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls } });
  await expect.poll(async () => (await getObject<Claim>('PersistentVolumeClaim', claim, NS)).status?.phase, { timeout: 20_000 }).toBe('Bound');
  return { cls, claim };
}

async function openSnapshotsTab(page: Page): Promise<void> {
  const tab = page.getByRole('tab', { name: 'Snapshots' });
  // A click before the page has hydrated does nothing: click until the tab is selected.
  await expect(async () => {
    await tab.click();
    await expect(tab).toHaveAttribute('aria-selected', 'true', { timeout: 1_000 });
  }).toPass();
}

async function takeSnapshot(page: Page, claim: string): Promise<string> {
  await signInAsDeveloper(page, `/claims/${NS}/${claim}`);
  await openSnapshotsTab(page);
  await expect(page.getByTestId('no-snapshots')).toBeVisible();
  await page.getByTestId('take-snapshot').click();
  const row = page.getByTestId('snapshot-row');
  await expect(row).toHaveCount(1);
  const name = (await row.getAttribute('data-name')) ?? '';
  expect(name.startsWith(`${claim}-`)).toBe(true);
  return name;
}

test.describe('snapshots', () => {
  let base: string;
  test.beforeEach(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-snap-'));
  });
  test.afterEach(() => rmSync(base, { recursive: true, force: true }));

  test('a developer takes a snapshot on the claim page, finds it on the Snapshots page, and schedules more', async ({ page }) => {
    const { claim } = await boundClaim(base);
    const snap = await takeSnapshot(page, claim);
    expect((await getObject<Obj & { spec: { source: unknown } }>('VolumeSnapshot', snap, NS)).spec.source).toEqual({ persistentVolumeClaimName: claim });

    // A schedule for this claim: a field error first, then one that takes its first snapshot at once.
    await page.getByTestId('add-schedule').click();
    await page.getByTestId('new-schedule-every').fill('1m');
    await expect(page.getByText('Every must be at least 5m')).toBeVisible();
    await expect(page.getByTestId('create-schedule')).toBeDisabled();
    await page.getByTestId('new-schedule-every').fill('6h');
    await page.getByTestId('new-schedule-keep').fill('3');
    await page.getByTestId('create-schedule').click();
    const card = page.getByTestId('schedule-card');
    await expect(card).toHaveAttribute('data-name', `${claim}-6h`);
    await expect(card.getByTestId('schedule-summary')).toHaveText('every 6h, keeps 3');
    await expect(page.locator(`[data-testid="snapshot-row"]`).filter({ hasText: `schedule ${claim}-6h` })).toHaveCount(1, { timeout: 15_000 });

    // Edit in place: keep 1.
    await card.getByTestId('edit-schedule').click();
    await page.getByTestId('edit-schedule-keep').fill('1');
    await page.getByTestId('save-schedule').click();
    await expect(card.getByTestId('schedule-summary')).toHaveText('every 6h, keeps 1');
    await screenshotThemes(page, 'claim-snapshots');

    // The backup option: on (the default target, keep 2), then off again by an edit.
    await card.getByTestId('edit-schedule').click();
    await page.getByTestId('edit-schedule-backup').check();
    await expect(page.getByTestId('edit-schedule-backup-target')).toHaveValue('The default target');
    await page.getByTestId('edit-schedule-backup-keep').fill('2');
    await page.getByTestId('save-schedule').click();
    await expect(card.getByTestId('schedule-backup')).toHaveText('backs up to the default target, keeps 2');
    expect((await getObject<Obj & { spec: { backup?: unknown } }>('SnapshotSchedule', `${claim}-6h`, NS)).spec.backup).toEqual({ keep: 2 });
    await card.getByTestId('edit-schedule').click();
    await page.getByTestId('edit-schedule-backup').uncheck();
    await page.getByTestId('save-schedule').click();
    await expect(card.getByTestId('schedule-backup')).toHaveCount(0);

    // The Snapshots page in the navigation lists it, filtered by text.
    await page.getByTestId('nav-snapshots').click();
    await page.getByRole('textbox', { name: 'Filter by text' }).fill(snap);
    await expect(page.getByRole('link', { name: snap, exact: true })).toBeVisible();
    await page.getByRole('link', { name: snap, exact: true }).click();
    await expect(page.getByTestId('summary')).toContainText(claim);
    // Its history says who took it, as for every kind.
    await page.getByRole('tab', { name: 'History' }).click();
    await expect(page.getByTestId('history').locator(`[data-testid="history-entry"][data-action="create"][data-actor*="${DEV_USER.name}"]`).first()).toBeVisible();

    // Back on the claim: delete the hand-made snapshot, after a confirmation.
    await page.goto(`/claims/${NS}/${claim}`);
    await openSnapshotsTab(page);
    const mine = page.locator(`[data-testid="snapshot-row"][data-name="${snap}"]`);
    await mine.getByTestId('delete-snapshot').click();
    await expect(page.getByTestId('confirm-delete')).toBeVisible();
    await screenshot(page, 'snapshot-delete-dialog');
    await page.getByTestId('confirm-delete').click();
    await expect(mine).toHaveCount(0, { timeout: 20_000 });
    await expect(page.getByTestId('snapshot-row')).toHaveCount(1);
  });

  test('a developer clones a claim from the claim form: same class, at least its size', async ({ page }) => {
    const { cls, claim } = await boundClaim(base);
    await signInAsDeveloper(page, `/claims/new?namespace=${NS}&clone=${claim}`);
    await expect(page.getByTestId('class-picker').getByRole('radio', { name: new RegExp(cls) })).toBeChecked();
    await expect(page.getByRole('textbox', { name: 'Size' })).toHaveValue('64');
    const clone = uniqueName('clone');
    await page.getByRole('textbox', { name: 'Name' }).fill(clone);
    await page.getByRole('button', { name: 'Create claim' }).click();
    await expect(page).toHaveURL(new RegExp(`/claims/${NS}/${clone}$`));
    await expect(page.getByTestId('summary')).toContainText('Bound', { timeout: 30_000 });
    expect((await getObject<Claim>('PersistentVolumeClaim', clone, NS)).spec.dataSource).toEqual({ kind: 'PersistentVolumeClaim', name: claim });
  });

  test('a developer restores a snapshot to a new claim and sees it Bound with the right size', async ({ page }) => {
    const { claim } = await boundClaim(base, '96Mi');
    const snap = await takeSnapshot(page, claim);
    const row = page.getByTestId('snapshot-row');
    await expect(row).toHaveAttribute('data-state', 'Ready', { timeout: 30_000 });
    await expect(row.getByTestId('snapshot-size')).toHaveText('96 MiB');

    await row.getByTestId('restore-snapshot').click();
    await expect(page).toHaveURL(/\/claims\/new\?/);
    await expect(page.getByTestId('claim-source-select')).toHaveValue(new RegExp(snap));
    const restored = uniqueName('restored');
    await page.getByRole('textbox', { name: 'Name' }).fill(restored);
    await expect(page.getByRole('textbox', { name: 'Size' })).toHaveValue('96');
    // Smaller than the snapshot is refused with the reason.
    await page.getByRole('textbox', { name: 'Size' }).fill('32');
    await expect(page.getByText(`may not be smaller than the snapshot's restore size`)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Create claim' })).toBeDisabled();
    await page.getByRole('textbox', { name: 'Size' }).fill('96');
    await page.getByRole('button', { name: 'Create claim' }).click();

    await expect(page).toHaveURL(new RegExp(`/claims/${NS}/${restored}$`));
    await expect(page.getByTestId('summary')).toContainText('Bound', { timeout: 30_000 });
    await expect(page.locator('[data-label="Capacity"]')).toContainText('96 MiB');
    await expect(page.locator('[data-label="Made from"]')).toContainText(`VolumeSnapshot ${snap}`);
    const saved = await getObject<Claim>('PersistentVolumeClaim', restored, NS);
    expect(saved.spec.dataSource).toEqual({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snap });
    expect(saved.status?.capacity?.storage).toBe('96Mi');
  });

  test('an admin makes a snapshot class its driver\'s one default, and reads the classes and contents lists', async ({ page }) => {
    const driver = `example.com/${uniqueName('drv')}`;
    const a = uniqueName('vsc-a');
    const b = uniqueName('vsc-b');
    for (const [name, isDefault] of [[a, true], [b, false]] as const) {
      await createObject({
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotClass',
        metadata: { name, ...(isDefault ? { annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } : {}) },
        driver,
        deletionPolicy: 'Retain',
      });
    }
    const isDefault = async (n: string) => ((await getObject<Obj & { metadata: { annotations?: Record<string, string> } }>('VolumeSnapshotClass', n)).metadata.annotations ?? {})['snapshot.storage.kubernetes.io/is-default-class'] === 'true';
    await signInAsAdmin(page, `/snapshot-classes?q=${b}`);
    await page.getByRole('link', { name: b, exact: true }).click();
    const sw = page.getByTestId('snapshot-class-default');
    await expect(sw).not.toBeChecked();
    await sw.click();
    await expect(sw).toBeChecked();
    await expect.poll(async () => [await isDefault(a), await isDefault(b)]).toEqual([false, true]);
    await page.getByTestId('nav-snapshot-contents').click();
    await expect(page.getByRole('heading', { name: 'Snapshot contents' })).toBeVisible();
  });
});
