// Local disks in the browser: the machine `stowage start` runs on is a node whose agent
// watches the discovery directory of the default storageClassMap. Real directories (and a
// real tmpfs mount to make a wipe fail) under that directory.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { localPvName } from '../../server/domain/local-pv-name';
import { createObject, deleteObject, findObject, getObject, type Obj } from '../api';
import { expect, screenshot, signInAsAdmin, test, uniqueName } from '../helpers';

const run = promisify(execFile);
const CLASS = 'local-disks';
const NODE = process.env.STOWAGE_NODE_NAME || os.hostname();

async function discoveryDir(): Promise<string> {
  const cm = await getObject<Obj & { data: { storageClassMap: string } }>('ConfigMap', 'local-volume-config', 'kube-system');
  return (parse(cm.data.storageClassMap) as Record<string, { hostDir: string }>)[CLASS].hostDir;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function availablePv(entry: string, notUid?: string): Promise<Obj> {
  const name = localPvName(NODE, CLASS, entry);
  return until(`PV of ${entry} Available`, async () => {
    const pv = await findObject<Obj & { status?: { phase?: string } }>('PersistentVolume', name);
    return pv?.status?.phase === 'Available' && (pv.metadata as { uid?: string }).uid !== notUid ? pv : undefined;
  });
}

async function bind(entry: string): Promise<{ claim: string; pv: Obj }> {
  const pv = await availablePv(entry);
  const claim = uniqueName('disk-claim');
  await createObject(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Ki' } }, storageClassName: CLASS, volumeName: pv.metadata.name },
    },
    'default',
  );
  await until('bound', async () => (await getObject<Obj & { status?: { phase?: string } }>('PersistentVolume', pv.metadata.name)).status?.phase === 'Bound');
  return { claim, pv };
}

/** `files` empty files in subdirectories of 1,000, made by touch (fast enough for 100,000). */
async function fill(dir: string, files: number): Promise<void> {
  const script = 'for d in $(seq 1 "$2"); do mkdir -p "$1/d$d" && (cd "$1/d$d" && seq 1 1000 | xargs touch); done';
  await run('bash', ['-c', script, 'fill', dir, String(Math.ceil(files / 1000))]);
}

test.describe('local disks', () => {
  test('an ineligible entry shows its reason', async ({ page }) => {
    const dir = await discoveryDir();
    const entry = uniqueName('not-a-disk');
    await fs.writeFile(path.join(dir, entry), 'a plain file');
    try {
      await signInAsAdmin(page, `/nodes/${encodeURIComponent(NODE)}/disks`);
      const row = page.locator(`[data-testid="disk-row"][data-entry="${entry}"]`);
      await expect(row).toHaveAttribute('data-stage', 'ineligible', { timeout: 20_000 });
      await expect(row.getByTestId('disk-reason')).toContainText('not offered');
      await expect(row.getByTestId('disk-pv')).toHaveCount(0);
    } finally {
      await fs.rm(path.join(dir, entry), { force: true });
    }
  });

  test("a released local claim's disk shows a moving progress bar and comes back Available", async ({ page }) => {
    test.setTimeout(180_000);
    const dir = await discoveryDir();
    const entry = uniqueName('wipe');
    await fs.mkdir(path.join(dir, entry));
    const { claim, pv } = await bind(entry);
    // Enough files for a wipe of several seconds: the bar is seen while it runs.
    await fill(path.join(dir, entry), 100_000);
    await signInAsAdmin(page, `/nodes/${encodeURIComponent(NODE)}/disks`);
    const row = page.locator(`[data-testid="disk-row"][data-entry="${entry}"]`);
    await expect(row).toHaveAttribute('data-stage', 'bound');
    await deleteObject('PersistentVolumeClaim', claim, 'default');
    const bar = row.getByTestId('disk-progress');
    await expect(bar).toBeVisible({ timeout: 30_000 });
    // The bar moves without a reload: two different values while the wipe runs.
    // A fast machine may finish the wipe between two looks: then the bar is gone, not stuck.
    const first = await bar.getAttribute('data-value', { timeout: 2_000 }).catch(() => null);
    await screenshot(page, 'disk-wipe');
    await expect.poll(async () => (await bar.count()) === 0 || (await bar.getAttribute('data-value')) !== first, { timeout: 60_000 }).toBe(true);
    await expect(row).toHaveAttribute('data-stage', 'available', { timeout: 90_000 });
    const fresh = await availablePv(entry, (pv.metadata as { uid?: string }).uid);
    expect(fresh.metadata.name).toBe(pv.metadata.name);
    expect(await fs.readdir(path.join(dir, entry))).toEqual([]);
  });

  test('an admin retries a failed cleanup', async ({ page }) => {
    test.setTimeout(120_000);
    const dir = await discoveryDir();
    const entry = uniqueName('stuck');
    const mnt = path.join(dir, entry, 'mnt');
    await fs.mkdir(mnt, { recursive: true });
    // Something inside the disk that the wipe cannot remove makes it fail: a tmpfs mounted
    // there (the wipe never crosses into another filesystem), or, where mounting is not
    // permitted (not root), a directory without write permission holding a file.
    const mounted = await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).then(
      () => true,
      () => false,
    );
    if (!mounted) {
      await fs.writeFile(path.join(mnt, 'pinned'), 'x');
      await fs.chmod(mnt, 0o555);
    }
    const unblock = () => (mounted ? run('umount', [mnt]) : fs.chmod(mnt, 0o755));
    try {
      const { claim } = await bind(entry);
      await signInAsAdmin(page, `/nodes/${encodeURIComponent(NODE)}/disks`);
      const row = page.locator(`[data-testid="disk-row"][data-entry="${entry}"]`);
      await deleteObject('PersistentVolumeClaim', claim, 'default');
      await expect(row).toHaveAttribute('data-stage', 'failed', { timeout: 60_000 });
      await expect(row.getByTestId('disk-wipe-error')).not.toBeEmpty();
      await unblock();
      await row.getByTestId('disk-retry').click();
      await expect(row).toHaveAttribute('data-stage', 'available', { timeout: 60_000 });
    } finally {
      await Promise.resolve(unblock()).catch(() => {});
    }
  });
});
