// Data for the snapshot tests: a small tree of files written into a volume, changed after
// the snapshot, and read back whole (every path with its bytes' hash) to compare exactly.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Every file under `root` (relative path -> sha256), directories as "dir"; lost+found left out. */
export async function readTree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      if (dir === root && e.name === 'lost+found') continue;
      const p = path.join(dir, e.name);
      const rel = path.relative(root, p);
      if (e.isDirectory()) {
        out[rel] = 'dir';
        await walk(p);
      } else {
        out[rel] = createHash('sha256').update(await fs.readFile(p)).digest('hex');
      }
    }
  }
  await walk(root);
  return out;
}

/** The first data: a text file, a random binary file in a subdirectory. */
export async function writeFirst(root: string): Promise<void> {
  await fs.writeFile(path.join(root, 'a.txt'), 'the first words\n');
  await fs.mkdir(path.join(root, 'sub'), { recursive: true });
  await fs.writeFile(path.join(root, 'sub', 'b.bin'), randomBytes(1 << 20));
}

/** Changes after the snapshot: one file rewritten, one removed, one added. */
export async function changeData(root: string): Promise<void> {
  await fs.writeFile(path.join(root, 'a.txt'), 'other words\n');
  await fs.rm(path.join(root, 'sub', 'b.bin'));
  await fs.writeFile(path.join(root, 'c.txt'), 'new\n');
}
