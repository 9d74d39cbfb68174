// Test helpers for the provisioner plugins: claims and classes, and a cleanup that
// releases every mount and loop device under a test's directory, whatever state a failed
// test left behind.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import { parseMountInfo } from '../domain/filesystem';

const run = promisify(execFile);

export function testClaim(over: { name?: string; size?: string; spec?: Record<string, unknown>; annotations?: Record<string, string> } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: over.name ?? 'data', namespace: 'team-a', uid: randomUUID(), annotations: over.annotations },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: over.size ?? '10Mi' } },
      storageClassName: 'local',
      volumeMode: 'Filesystem',
      ...over.spec,
    },
  };
}

export function testClass(provisioner: string, parameters: Record<string, string>, extra: Record<string, unknown> = {}): StorageClass {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'local' },
    provisioner,
    parameters,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    ...extra,
  };
}

/** Unmounts, detaches and removes everything under `dir` (real OS). Never throws. */
export async function releaseEverythingUnder(dir: string): Promise<string[]> {
  const problems: string[] = [];
  const inside = (p: string) => p === dir || p.startsWith(`${dir}/`);
  try {
    const mounts = parseMountInfo(await fs.readFile('/proc/self/mountinfo', 'utf8'));
    const targets = [...mounts.keys()].filter(inside).sort((a, b) => b.length - a.length);
    for (const t of targets) await run('umount', ['-l', t]).catch((e) => problems.push(String(e)));
  } catch (e) {
    problems.push(String(e));
  }
  try {
    const { stdout } = await run('losetup', ['-l', '-n', '-O', 'NAME,BACK-FILE', '--raw']);
    for (const line of stdout.split('\n')) {
      const [dev, ...rest] = line.trim().split(' ');
      const file = rest.join(' ').replace(/ \(deleted\)$/, '');
      if (dev && inside(file)) await run('losetup', ['-d', dev]).catch((e) => problems.push(String(e)));
    }
  } catch {
    // losetup not permitted: nothing can have been attached either.
  }
  await fs.rm(dir, { recursive: true, force: true }).catch((e) => problems.push(String(e)));
  return problems;
}

/** releaseEverythingUnder in a test's or a bench's last cleanup: what it could not release is printed, not thrown over the run's own result. */
export async function releaseAndWarn(dir: string): Promise<void> {
  const problems = await releaseEverythingUnder(dir);
  if (problems.length > 0) console.warn('cleanup problems', problems);
}

/** Loop devices attached to files under `dir` (real OS). */
export async function loopsUnder(dir: string): Promise<string[]> {
  const { stdout } = await run('losetup', ['-l', '-n', '-O', 'NAME,BACK-FILE', '--raw']);
  return stdout
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter(([dev, file]) => dev && file && file.startsWith(`${dir}/`))
    .map(([dev]) => dev);
}

/** Mount points under `dir` (real OS). */
export async function mountsUnder(dir: string): Promise<string[]> {
  const mounts = parseMountInfo(await fs.readFile('/proc/self/mountinfo', 'utf8'));
  return [...mounts.keys()].filter((t) => t.startsWith(`${dir}/`));
}
