// A btrfs pool from a file, as a new user makes one: `stowage pool create` in a temp dir,
// the printed class applied, a claim and a pod; the claim lands on this node, data written
// into its subvolume shows in the claims' and volumes' Used column, on the claim's page and
// in the node's pool bars. The class, the claim and the pool belong to this test; the pool
// is unmounted and its loop device detached whatever happens. Where the machine forbids
// loop mounts (or btrfs-progs is missing) the reason is printed and the test checks that
// `stowage pool create` refuses in words instead.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { poolSupport } from '../../server/agent/pool-setup';
import { releaseEverythingUnder } from '../../server/provisioners/testing';
import { createObject, deleteObject, findObject, getObject, type Obj } from '../api';
import { expect, screenshotThemes, signInAsAdmin, test, uniqueName } from '../helpers';

const run = promisify(execFile);
const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'stowage.mjs');
const NODE = process.env.STOWAGE_NODE_NAME || os.hostname();
const NS = 'default';
const Mi = 1024 * 1024;

type Pv = Obj & { spec: { local?: { path: string }; nodeAffinity?: { required?: { nodeSelectorTerms?: { matchExpressions?: { values?: string[] }[] }[] } } } };

/** Writes `bytes` of data into a new file and makes btrfs commit it, so its qgroup counts it. */
async function fill(file: string, bytes: number): Promise<void> {
  const h = await fs.open(file, 'w');
  try {
    const block = Buffer.alloc(Mi, 7);
    for (let n = 0; n < bytes; n += Mi) await h.write(block, 0, Math.min(Mi, bytes - n));
    await h.sync();
  } finally {
    await h.close();
  }
  await run('btrfs', ['filesystem', 'sync', path.dirname(file)]);
}

test('a pool made from a file: the claim lands on the node, and written data moves Used and the pool bars', async ({ page }) => {
  test.setTimeout(150_000);
  const support = await poolSupport();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-pool-'));
  if (!support.ok) {
    // Where the machine forbids pools (no loop devices, no btrfs, no mounts): said aloud,
    // and what a user gets there is checked instead: a refusal in words, not a crash.
    console.log(`[pools journey] this machine cannot make a btrfs pool from a file (${support.reason}); checking the refusal instead`);
    const refused = await run(process.execPath, [bin, 'pool', 'create', '--btrfs', path.join(dir, 'pool.img'), '--size', '512Mi', '--mount', path.join(dir, 'pool')]).then(
      () => undefined,
      (e: { code?: number; stderr?: string }) => e,
    );
    expect(refused, 'stowage pool create succeeded on a machine that cannot make pools').toBeDefined();
    expect(refused!.code).not.toBe(0);
    expect(refused!.stderr?.trim()).toBeTruthy();
    expect(refused!.stderr).not.toMatch(/^\s+at /m);
    await fs.rm(dir, { recursive: true, force: true });
    return;
  }

  const cls = uniqueName('pooled');
  const claim = uniqueName('pool-data');
  const pod = uniqueName('pool-app');
  try {
    const made = await run(process.execPath, [bin, 'pool', 'create', '--btrfs', path.join(dir, 'pool.img'), '--size', '512Mi', '--mount', path.join(dir, 'pool'), '--class', cls]);
    const sc = parse(made.stdout) as Obj & { provisioner: string; parameters: { pool: string } };
    expect(sc).toMatchObject({ kind: 'StorageClass', metadata: { name: cls }, provisioner: 'stowage.io/btrfs', parameters: { pool: path.join(dir, 'pool') } });
    await createObject(sc);
    await createObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claim, namespace: NS }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '64Mi' } } } }, NS);
    await createObject(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod, namespace: NS },
        spec: { containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
      },
      NS,
    );
    await expect
      .poll(async () => ((await getObject('PersistentVolumeClaim', claim, NS)).status as { phase?: string } | undefined)?.phase, { message: 'the claim binds', timeout: 30_000 })
      .toBe('Bound');
    const volume = ((await getObject('PersistentVolumeClaim', claim, NS)).spec as { volumeName: string }).volumeName;
    const pv = await getObject<Pv>('PersistentVolume', volume);
    expect(pv.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values).toEqual([NODE]);
    const subvolume = pv.spec.local!.path;
    expect(subvolume).toBe(path.join(dir, 'pool', `pvc-${(await getObject('PersistentVolumeClaim', claim, NS)).metadata.uid as string}`));

    // The node's pool before the data: its used share.
    await signInAsAdmin(page, `/nodes/${encodeURIComponent(NODE)}`);
    const poolRow = page.getByTestId('node-pools').locator(`[data-testid="pool-row"][data-class="${cls}"]`);
    await expect(poolRow).toBeVisible({ timeout: 20_000 });
    await expect(poolRow).toContainText('Allocated 64 MiB');
    const usedBar = poolRow.getByRole('progressbar', { name: /^Used / });
    const usedBefore = Number(await usedBar.getAttribute('aria-valuenow'));

    // The claim is Bound on this node; the claims list shows it, with no usage yet or a little.
    await page.goto(`/claims?namespace=${NS}&q=${claim}`);
    const row = page.locator(`[data-testid="object-row"][data-name="${claim}"]`);
    await expect(row).toContainText('Bound');

    await fill(path.join(subvolume, 'data.bin'), 40 * Mi);

    // Used moves in the claims list (live, from the volume's usage), with the claim's size.
    await expect(row.getByTestId('used-cell')).toContainText(/^(4\d(\.\d)?) MiB of 64 MiB/, { timeout: 30_000 });
    // The volumes list, sorted by Used, shows it too.
    await page.goto(`/volumes?q=${volume}&sort=-used`);
    await expect(page.locator(`[data-testid="object-row"][data-name="${volume}"]`).getByTestId('used-cell')).toContainText(/MiB of 64 MiB/);
    // The volume's page: used of its capacity, readable (not the raw annotation).
    await page.goto(`/volumes/${volume}`);
    await expect(page.getByTestId('volume-used')).toContainText(/^4\d(\.\d)? MiB of 64 MiB/);
    // The claim's page: used of provisioned, readable.
    await page.goto(`/claims/${NS}/${claim}`);
    await expect(page.getByTestId('summary')).toContainText('Bound');
    await expect(page.getByTestId('capacity-used')).toContainText(/4\d(\.\d)? MiB/);
    // The node's pool bar moved.
    await page.goto(`/nodes/${encodeURIComponent(NODE)}`);
    await expect.poll(async () => Number(await usedBar.getAttribute('aria-valuenow')), { message: 'the pool used bar moves', timeout: 20_000 }).toBeGreaterThan(usedBefore);
    // The Capacity page's pools.
    await page.goto('/capacity');
    await page.getByRole('tab', { name: 'Pools' }).click();
    const capRow = page.getByTestId(`pool-row-${NODE}-${cls}`);
    await expect(capRow).toContainText('64 MiB');
    await screenshotThemes(page, 'capacity-pools');

    // Past 90% of the claim: a Warning event on the claim and the home page's list.
    await fill(path.join(subvolume, 'more.bin'), 20 * Mi);
    await page.goto('/');
    const nearlyFull = page.getByTestId('claims-nearly-full');
    await expect(nearlyFull).toContainText(`${NS}/${claim}`, { timeout: 30_000 });
    await expect(nearlyFull).toContainText(/of 64 MiB \(9\d%\)/);
    await page.goto(`/claims/${NS}/${claim}`);
    await page.getByRole('tab', { name: 'Events' }).click();
    await expect(page.getByText(/VolumeNearlyFull/).first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText(/volume is 9\d% full: \d+Mi used of 64Mi \(warning at 90%\)/).first()).toBeVisible();
    // An administrator raises the threshold: the claim leaves the list; back to the default.
    await page.goto('/settings');
    await page.getByRole('textbox', { name: 'Threshold' }).fill('99');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('nearly-full-source')).toContainText('Set to 99% by admin');
    await page.goto('/');
    await expect(page.getByTestId('stat-claims-nearly-full')).toBeVisible();
    await expect(page.getByTestId('claims-nearly-full')).toHaveCount(0);
    await page.goto('/settings');
    await page.getByRole('button', { name: 'Use the default (90%)' }).click();
    await expect(page.getByTestId('nearly-full-source')).toContainText('The default, 90%');
  } finally {
    await deleteObject('Pod', pod, NS).catch(() => {});
    await deleteObject('PersistentVolumeClaim', claim, NS).catch(() => {});
    // The subvolume goes with the claim (reclaim policy Delete) before the pool is released.
    await expect.poll(async () => (await findObject('PersistentVolumeClaim', claim, NS)) === undefined, { timeout: 30_000 }).toBe(true).catch(() => {});
    await deleteObject('StorageClass', cls).catch(() => {});
    const problems = await releaseEverythingUnder(dir);
    if (problems.length > 0) console.warn('pool cleanup problems', problems);
  }
});
