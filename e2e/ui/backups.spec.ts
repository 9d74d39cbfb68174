// Backups as an admin uses them: make a backup target in a temporary directory on the
// Backup targets page, back a claim up from its page, see it Completed (on the claim and on
// the Backups page), restore it to a new claim from the restore form and see that claim
// Bound, made from the backup. Both themes and a phone's width on the way.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { createObject, deleteObject, findObject, getObject, objectNames, type Obj } from '../api';
import { DEV_USER } from '../env';
import { expect, screenshotThemes, signInAsAdmin, signInAsDeveloper, test, uniqueName } from '../helpers';

const NS = DEV_USER.namespace;
type Claim = Obj & { status?: { phase?: string; capacity?: { storage?: string } }; spec: { dataSourceRef?: unknown; storageClassName?: string } };
type Target = Obj & { spec: { path: string; default?: boolean } };

/** The page is no wider than the window: nothing runs off sideways. */
async function expectNoSidewaysOverflow(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/** Picks an option of a Mantine Select by its label. */
async function choose(page: Page, testId: string, option: RegExp): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: option }).click();
}

test.describe('backups', () => {
  let base: string;
  let targetDir: string;
  const made: { kind: string; name: string; namespace?: string }[] = [];
  test.beforeEach(() => {
    base = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-backup-src-'));
    targetDir = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-backup-target-'));
  });
  test.afterEach(async () => {
    // Claims first, then backups (wait until each is gone: its finalizer needs the target to
    // clean up), then the target and the class.
    const order = ['PersistentVolumeClaim', 'VolumeBackup', 'BackupTarget', 'StorageClass', 'VolumeSnapshotClass'];
    for (const kind of order) {
      for (const o of made.filter((m) => m.kind === kind)) {
        await deleteObject(o.kind, o.name, o.namespace).catch(() => undefined);
        if (kind === 'VolumeBackup') await expect.poll(() => findObject(o.kind, o.name, o.namespace), { timeout: 60_000 }).toBeUndefined();
      }
    }
    made.length = 0;
    rmSync(base, { recursive: true, force: true });
    rmSync(targetDir, { recursive: true, force: true });
  });

  test('an admin makes a target, backs a claim up from its page, and restores it to a new claim that binds', async ({ page }) => {
    test.setTimeout(180_000);
    // A Bound host-path claim with a little data's worth of size (made by the admin's API).
    const cls = uniqueName('bk-hp');
    const claim = uniqueName('bk-src');
    await createObject({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'stowage.io/host-path', parameters: { basePath: base }, reclaimPolicy: 'Delete' });
    await createObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim, namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } }, storageClassName: cls } });
    // A snapshot class of the driver: a backup of a claim reads a snapshot Stowage takes first.
    const vsc = uniqueName('bk-vsc');
    await createObject({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: vsc }, driver: 'stowage.io/host-path', deletionPolicy: 'Delete' });
    made.push({ kind: 'StorageClass', name: cls }, { kind: 'VolumeSnapshotClass', name: vsc }, { kind: 'PersistentVolumeClaim', name: claim, namespace: NS });
    await expect.poll(async () => (await getObject<Claim>('PersistentVolumeClaim', claim, NS)).status?.phase, { timeout: 30_000 }).toBe('Bound');

    // The target, from the Backup targets page (in the menu for admins); the default when there is none yet.
    await signInAsAdmin(page, '/');
    await page.getByTestId('nav-backup-targets').click();
    await expect(page.getByRole('heading', { name: 'Backup targets', level: 1 })).toBeVisible();
    const target = uniqueName('bk-target');
    await page.getByTestId('target-name').fill(target);
    // A relative path is refused before anything is sent.
    await page.getByTestId('target-path-input').fill('relative/dir');
    await page.getByTestId('create-target').click();
    await expect(page.getByText('The path must be absolute (start with /).')).toBeVisible();
    await page.getByTestId('target-path-input').fill(targetDir);
    const existing = await Promise.all((await objectNames('BackupTarget')).map((n) => getObject<Target>('BackupTarget', n)));
    const isDefault = !existing.some((t) => t.spec.default);
    if (isDefault) await page.getByTestId('target-default-input').check();
    await page.getByTestId('create-target').click();
    made.push({ kind: 'BackupTarget', name: target });
    const card = page.locator(`[data-testid="target-card"][data-name="${target}"]`);
    await expect(card.getByTestId('target-path')).toHaveText(targetDir);
    // The agent looks at it and reports: Ready, with this node reachable and writable.
    await expect(card).toHaveAttribute('data-ready', 'Ready', { timeout: 60_000 });
    await expect(card.locator('[data-testid="target-node"][data-health="ok"]').first()).toBeVisible();
    await screenshotThemes(page, 'backup-targets');

    // Back the claim up from its page, into the new target.
    await page.goto(`/claims/${NS}/${claim}`);
    const section = page.getByTestId('claim-backups');
    await expect(section.getByTestId('no-backups')).toBeVisible();
    if (isDefault) await expect(section.getByTestId('backup-target-select')).toHaveValue(new RegExp(`^${target} \\(default\\)`));
    await choose(page, 'backup-target-select', new RegExp(`^${target}`));
    await section.getByTestId('back-up-now').click();
    const row = section.getByTestId('backup-row');
    await expect(row).toHaveCount(1);
    const backup = (await row.getAttribute('data-name')) ?? '';
    expect(backup.startsWith(`${claim}-`)).toBe(true);
    made.push({ kind: 'VolumeBackup', name: backup, namespace: NS });
    await expect(row).toHaveAttribute('data-phase', 'Completed', { timeout: 90_000 });
    await expect(row.getByTestId('backup-size')).toHaveText('64 MiB');
    const saved = await getObject<Obj & { spec: { source: unknown; backupTargetName?: string } }>('VolumeBackup', backup, NS);
    expect(saved.spec.source).toEqual({ persistentVolumeClaimName: claim });
    await screenshotThemes(page, 'claim-backups');

    // The Backups page lists it under its namespace; no sideways scrolling on a phone.
    await page.getByTestId('nav-backups').click();
    const listed = page.locator(`[data-testid="backup-namespace"][data-namespace="${NS}"] [data-testid="backup-row"][data-name="${backup}"]`);
    await expect(listed).toHaveAttribute('data-phase', 'Completed');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoSidewaysOverflow(page);
    await page.setViewportSize({ width: 1280, height: 800 });
    await expectNoSidewaysOverflow(page);

    // Its page: Completed, with the claim it came from; then the restore form, prefilled.
    await listed.getByTestId('backup-link').click();
    await expect(page).toHaveURL(new RegExp(`/backups/${NS}/${backup}$`));
    await expect(page.locator('[data-label="Source claim"]')).toContainText(claim);
    await page.getByTestId('restore-backup').click();
    await expect(page).toHaveURL(new RegExp(`/backups/${NS}/${backup}/restore$`));
    await expect(page.getByTestId('restore-class')).toHaveValue(new RegExp(`^${cls} `));
    await expect(page.getByTestId('restore-size')).toHaveValue('64');
    // Smaller than the backup is refused with the reason.
    await page.getByTestId('restore-size').fill('32');
    await expect(page.getByText(/At least the backup's size/)).toBeVisible();
    await page.getByTestId('restore-size').fill('64');
    const restored = uniqueName('bk-restored');
    await page.getByTestId('restore-claim-name').fill(restored);
    await page.getByTestId('restore-submit').click();
    made.push({ kind: 'PersistentVolumeClaim', name: restored, namespace: NS });

    // The new claim binds once its volume is filled from the target.
    await expect(page).toHaveURL(new RegExp(`/claims/${NS}/${restored}$`));
    await expect(page.getByTestId('summary')).toContainText('Bound', { timeout: 90_000 });
    const back = await getObject<Claim>('PersistentVolumeClaim', restored, NS);
    expect(back.spec.dataSourceRef).toEqual({ apiGroup: 'stowage.io', kind: 'VolumeBackup', name: backup });
    expect(back.spec.storageClassName).toBe(cls);
    expect(back.status?.capacity?.storage).toBe('64Mi');
  });

  test('a developer is told at once that backup targets are for administrators, and sees no targets in the menu', async ({ page }) => {
    await signInAsDeveloper(page, '/backup-targets');
    await page.goto('/backup-targets');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Backup targets');
    await expect(page.getByTestId('admins-only')).toContainText('This page is for administrators');
    await expect(page.getByTestId('target-path-input')).toHaveCount(0);
    await expect(page.getByTestId('nav-backup-targets')).toHaveCount(0);
  });
});
