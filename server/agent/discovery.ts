// Discovery: what each discovery directory of this node holds (after the upstream static
// provisioner's pkg/discovery). Every entry is reported, eligible or not; an ineligible one
// carries the reason an admin needs to fix it. Each entry is reported as what it is:
// directories and mount points as Filesystem (capacity from statfs), symlinks to block
// devices (or device nodes) as Block (capacity = device size); the class's configured
// volumeMode then decides the PV's mode (a Block class offers no directory). hostPath is hostDir + "/" + entryName,
// the path on the host, whatever mountDir the agent sees it under.
import type { DiscoveredEntry } from '../contracts/agent';
import { matchNamePattern, type LocalClassConfig } from '../domain/local-volume-config';
import type { AgentOs, EntryStat } from './os';

const CONCURRENCY = 32;

const errText = (e: unknown) => {
  const err = e as NodeJS.ErrnoException;
  return err?.code ? `${err.code}` : String((e as Error)?.message ?? e);
};
const inside = (p: string, root: string) => p.startsWith(root === '/' ? '/' : `${root}/`);

interface Mounts {
  targets: Set<string>;
  /** source device -> one place it is mounted. */
  sources: Map<string, string>;
}

interface Probe {
  entry: DiscoveredEntry;
  /** Identity of the storage behind it, for "same device reachable twice". */
  identity?: string;
  /** A plain directory (not a mount point) without a declared capacity: it shares its filesystem. */
  share?: { fs: string; totalBytes: bigint; minSizeBytes: string };
}

export interface DiscoverOptions {
  /**
   * Host paths whose cleanup is running on this agent (CleanupRunner.activePaths()): they
   * are reported ineligible with cleanupRunning set, so a half-wiped disk is never offered.
   */
  cleaning?: ReadonlySet<string>;
}

/** Discovers every class's directory; entries in class order, then name order. */
export async function discoverAll(os: AgentOs, classes: LocalClassConfig[], opts: DiscoverOptions = {}): Promise<DiscoveredEntry[]> {
  const table = await os.mountTable();
  const mounts: Mounts = { targets: new Set(table.keys()), sources: new Map([...table].map(([t, s]) => [s, t])) };
  const all: Probe[] = [];
  for (const cls of classes) all.push(...(await discoverClass(os, cls, mounts)));
  // The same disk must never become two PVs: the first sighting wins, later ones say where it is.
  const seen = new Map<string, DiscoveredEntry>();
  for (const p of all) {
    if (!p.entry.eligible || !p.identity) continue;
    const first = seen.get(p.identity);
    if (first) {
      p.entry.eligible = false;
      p.entry.reason = `the same ${p.entry.volumeMode === 'Block' ? 'device' : 'storage'} is also reachable as ${first.hostPath}`;
    } else seen.set(p.identity, p.entry);
  }
  shareFilesystems(all);
  for (const p of all) {
    if (opts.cleaning?.has(p.entry.hostPath)) {
      p.entry.eligible = false;
      p.entry.reason = 'a cleanup of this disk is running';
      p.entry.cleanupRunning = true;
    }
  }
  return all.map((p) => p.entry);
}

/**
 * Plain directories are not disks of their own: those on one filesystem (across classes)
 * share its size equally, so two directories on a 252 GiB disk are 126 GiB each and the
 * totals never count the disk twice. Not a quota: nothing stops one from filling the disk.
 */
function shareFilesystems(all: Probe[]): void {
  const count = new Map<string, bigint>();
  for (const p of all) if (p.share && p.entry.eligible) count.set(p.share.fs, (count.get(p.share.fs) ?? 0n) + 1n);
  for (const p of all) {
    if (!p.share || !p.entry.eligible) continue;
    const bytes = p.share.totalBytes / (count.get(p.share.fs) ?? 1n);
    p.entry.capacityBytes = bytes.toString();
    const min = BigInt(p.share.minSizeBytes || '0');
    if (bytes < min) {
      p.entry.eligible = false;
      p.entry.reason = `smaller (${bytes} bytes, its share of a filesystem other directories use too) than minSize (${p.share.minSizeBytes} bytes)`;
    }
  }
}

async function discoverClass(os: AgentOs, cls: LocalClassConfig, mounts: Mounts): Promise<Probe[]> {
  let names: string[];
  let root: string;
  try {
    root = await os.realpath(cls.mountDir);
    names = (await os.readdir(cls.mountDir)).sort();
  } catch {
    // A missing discovery directory holds no volumes; the agent reports the class itself.
    return [];
  }
  const out: Probe[] = new Array(names.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < names.length; i = next++) out[i] = await probe(os, cls, root, names[i], mounts);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, names.length) }, worker));
  return out;
}

async function probe(os: AgentOs, cls: LocalClassConfig, root: string, name: string, mounts: Mounts): Promise<Probe> {
  const entry: DiscoveredEntry = {
    className: cls.className,
    entryName: name,
    hostPath: `${cls.hostDir}/${name}`,
    volumeMode: 'Filesystem',
    capacityBytes: '0',
    eligible: false,
  };
  const no = (reason: string): Probe => ({ entry: { ...entry, reason } });
  if (!matchNamePattern(cls.namePattern, name)) return no(`name does not match namePattern "${cls.namePattern}"`);

  const local = `${cls.mountDir}/${name}`;
  let own: EntryStat;
  try {
    own = await os.lstat(local);
  } catch (e) {
    return no(`unreadable: ${errText(e)}`);
  }

  let target = own;
  let real = `${root}/${name}`;
  if (own.kind === 'symlink') {
    try {
      target = await os.stat(local);
      real = await os.realpath(local);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === 'ENOENT') return no('broken symlink: its target does not exist');
      if (code === 'ELOOP') return no('broken symlink: a symlink loop');
      return no(`unreadable: ${errText(e)}`);
    }
  }

  if (target.kind === 'block') {
    // The normal case for Block: a symlink in the discovery directory to /dev/... .
    entry.volumeMode = 'Block';
    let size: bigint;
    try {
      size = await os.blockDeviceSize(real);
    } catch (e) {
      return no(`unreadable block device ${real}: ${errText(e)}`);
    }
    entry.capacityBytes = size.toString();
    entry.deviceId = `dev:${target.rdev}`;
    const mountedAt = mounts.sources.get(real);
    if (mountedAt !== undefined) return { entry: { ...entry, reason: `block device ${real} is mounted (at ${mountedAt})` } };
    return finish(entry, cls, `dev:${target.rdev}`);
  }

  if (target.kind !== 'directory') {
    const what = target.kind === 'file' ? 'a regular file' : target.kind === 'char' ? 'a character device' : `a ${target.kind}`;
    return no(`not a directory or block device (${what})`);
  }

  // The class's configured volumeMode decides what it offers (upstream): a directory never
  // becomes a Block volume; a block device in a Filesystem class is offered (its PV is a
  // Filesystem volume on the device).
  if (cls.volumeMode === 'Block') return no(`path "${local}" of filesystem mode cannot be used to create block volume`);

  // A directory must resolve inside the discovery directory: a symlink out of it would hand
  // out storage the admin never put there.
  if (!inside(real, root)) return no(`resolves outside the discovery directory (to ${real})`);
  const isMount = mounts.targets.has(real);
  if (cls.requireMountPoints && !isMount) return no('not a mount point (this class requires mount points: requireMountPoints)');
  try {
    await os.readdir(real);
    const fs = await os.statfs(real);
    entry.capacityBytes = fs.totalBytes.toString();
  } catch (e) {
    return no(`unreadable: ${errText(e)}`);
  }
  // A mounted filesystem is the device it sits on; a plain directory is its inode.
  const identity = isMount ? `dev:${target.dev}` : `ino:${target.dev}:${target.ino}`;
  entry.deviceId = identity;
  if (isMount) return finish(entry, cls, identity);
  // A plain directory: the capacity declared for the class, else a share of its filesystem
  // (discoverAll divides once it has seen every directory on it; minSize is checked then).
  if (cls.directoryCapacityBytes) {
    entry.capacityBytes = cls.directoryCapacityBytes;
    return finish(entry, cls, identity);
  }
  const total = BigInt(entry.capacityBytes);
  return { entry: { ...entry, eligible: true }, identity, share: { fs: `dev:${target.dev}`, totalBytes: total, minSizeBytes: cls.minSizeBytes } };
}

function finish(entry: DiscoveredEntry, cls: LocalClassConfig, identity: string): Probe {
  const min = BigInt(cls.minSizeBytes || '0');
  if (BigInt(entry.capacityBytes) < min) {
    return { entry: { ...entry, eligible: false, reason: `smaller (${entry.capacityBytes} bytes) than minSize (${cls.minSizeBytes} bytes)` } };
  }
  return { entry: { ...entry, eligible: true }, identity };
}
