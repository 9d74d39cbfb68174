// Making a btrfs pool on this machine (`stowage pool create --btrfs`): a file is sized
// (sparse) and attached as a loop device, or a device is used as it is; then mkfs.btrfs,
// mount, and `btrfs quota enable`. Each step is skipped when already done, so running it
// again after an interruption finishes the job; a device that holds another filesystem
// is refused, never formatted over.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { parseMountInfo } from '../domain/filesystem';

const run = promisify(execFile);

async function cmd(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { maxBuffer: 4 * 1024 * 1024 })).stdout;
  } catch (e) {
    const err = e as { stderr?: string; message?: string };
    throw new Error(`${file} ${args.join(' ')}: ${(err.stderr || err.message || String(e)).trim()}`, { cause: e });
  }
}

export interface PoolSetup {
  /** A block device, or a file (made or grown to `sizeBytes`) to attach as a loop device. */
  source: string;
  mount: string;
  /** Size of a file source; required when the file does not exist yet. */
  sizeBytes?: bigint;
}

export interface PoolMade {
  device: string;
  /** The loop device's backing file, when the source was a file. */
  file?: string;
  mount: string;
  steps: string[];
}

async function fsTypeOf(device: string): Promise<string | undefined> {
  try {
    return (await run('blkid', ['-o', 'value', '-s', 'TYPE', device])).stdout.trim() || undefined;
  } catch {
    return undefined; // blkid exits 2 when it finds no filesystem
  }
}

async function attachedTo(file: string): Promise<string | undefined> {
  const out = await cmd('losetup', ['-j', file, '-n', '-O', 'NAME']);
  return out.split('\n').map((l) => l.trim()).find(Boolean);
}

export async function createPool(o: PoolSetup): Promise<PoolMade> {
  const steps: string[] = [];
  let device = o.source;
  let file: string | undefined;
  const st = await fs.stat(o.source).catch(() => undefined);
  if (!st || st.isFile()) {
    file = o.source;
    if (!st && o.sizeBytes === undefined) throw new Error(`${o.source} does not exist; give --size to make it`);
    if (o.sizeBytes !== undefined && (!st || BigInt(st.size) < o.sizeBytes)) {
      await fs.writeFile(file, '', { flag: 'a' });
      await fs.truncate(file, Number(o.sizeBytes));
      steps.push(`sized ${file} to ${o.sizeBytes} bytes (sparse)`);
    }
    const have = await attachedTo(file);
    device = have ?? (await cmd('losetup', ['-f', '--show', file])).trim();
    if (!have) steps.push(`attached ${file} as ${device}`);
  } else if (!st.isBlockDevice()) {
    throw new Error(`${o.source} is neither a file nor a block device`);
  }
  const found = await fsTypeOf(device);
  if (found === undefined) {
    await cmd('mkfs.btrfs', ['-q', device]);
    steps.push(`made a btrfs filesystem on ${device}`);
  } else if (found !== 'btrfs') {
    throw new Error(`${device} holds a ${found} filesystem; refusing to format it`);
  }
  await fs.mkdir(o.mount, { recursive: true });
  const mounts = parseMountInfo(await fs.readFile('/proc/self/mountinfo', 'utf8'));
  if (!mounts.has(o.mount)) {
    await cmd('mount', ['-t', 'btrfs', device, o.mount]);
    steps.push(`mounted ${device} at ${o.mount}`);
  }
  await cmd('btrfs', ['quota', 'enable', o.mount]);
  steps.push(`enabled quotas on ${o.mount}`);
  return { device, file, mount: o.mount, steps };
}

/** Whether this machine lets us attach loop devices and mount (root, no container limits); the reason when not. */
export async function poolSupport(): Promise<{ ok: boolean; reason?: string }> {
  try {
    await cmd('btrfs', ['--version']);
  } catch (e) {
    return { ok: false, reason: `btrfs-progs is not installed (${(e as Error).message})` };
  }
  try {
    await cmd('losetup', ['-f']);
  } catch (e) {
    return { ok: false, reason: `loop devices cannot be used here: ${(e as Error).message}` };
  }
  if (process.getuid?.() !== 0) return { ok: false, reason: 'mounting needs root' };
  return { ok: true };
}
