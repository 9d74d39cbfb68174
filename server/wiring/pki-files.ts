// The API's PKI in a backup: `<data dir>/pki` read for `stowage backup`, and written back,
// owner-only, by `stowage restore`, so kubeconfigs and agents that trust the old CA keep
// working against the restored server.
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { caPemPath } from '../kube/pki';
import { PKI_FILES } from '../store/backup';
import { writePrivateFile } from './private-file';

export function pkiDir(dataDir: string): string {
  return path.dirname(caPemPath(dataDir));
}

/** The PKI files of a data dir that exist (none when it has no CA: nothing to back up). */
export function readPkiFiles(dataDir: string): Record<string, string> {
  const dir = pkiDir(dataDir);
  if (!existsSync(path.join(dir, 'ca.crt')) || !existsSync(path.join(dir, 'ca.key'))) return {};
  const out: Record<string, string> = {};
  for (const name of PKI_FILES) {
    const file = path.join(dir, name);
    if (existsSync(file)) out[name] = readFileSync(file, 'utf8');
  }
  return out;
}

/** Why the backup's PKI cannot be restored into this data dir (a different CA already there), or undefined. */
export function pkiConflict(dataDir: string, pki: Record<string, string>): string | undefined {
  const dir = pkiDir(dataDir);
  for (const name of ['ca.crt', 'ca.key']) {
    const file = path.join(dir, name);
    if (pki[name] !== undefined && existsSync(file) && readFileSync(file, 'utf8') !== pki[name]) {
      return `${file} already exists and differs from the backup's; restore into an empty data dir, or move ${dir} away`;
    }
  }
  return undefined;
}

/** Writes the backup's PKI files into the data dir: the folder 0700, every file 0600. */
export async function writePkiFiles(dataDir: string, pki: Record<string, string>): Promise<string[]> {
  const dir = pkiDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const written: string[] = [];
  for (const [name, pem] of Object.entries(pki)) {
    await writePrivateFile(path.join(dir, name), pem);
    written.push(name);
  }
  return written;
}
