// Reading manifests: bounded in size, validated with zod (a manifest may be damaged or come
// from another installation); a missing one is a MissingBackupError.
import fs from 'node:fs/promises';
import { MAX_MANIFEST_BYTES, MissingBackupError, backupIdPattern, manifestPath, manifestSchema, type Layout, type Manifest } from './format';

export async function readManifestFile(file: string, backupId: string): Promise<Manifest> {
  let fh: fs.FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new MissingBackupError(backupId);
    throw e;
  }
  let text: string;
  try {
    const st = await fh.stat();
    if (st.size > MAX_MANIFEST_BYTES) throw new MissingBackupError(backupId, `its manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
    text = await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new MissingBackupError(backupId, 'its manifest is not JSON');
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MissingBackupError(backupId, `its manifest is not valid (${issue?.path.join('.') || 'root'}: ${issue?.message ?? 'invalid'})`);
  }
  if (parsed.data.backupId !== backupId) throw new MissingBackupError(backupId, `its manifest names backup ${parsed.data.backupId}`);
  return parsed.data;
}

export function readManifest(l: Layout, backupId: string): Promise<Manifest> {
  return readManifestFile(manifestPath(l, backupId), backupId);
}

/** The ids of the manifests in the target (file names `<id>.json`). */
export async function manifestIds(l: Layout): Promise<string[]> {
  const names = await fs.readdir(l.backups).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  return names
    .filter((n) => n.endsWith('.json') && !n.includes('.tmp-'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter((id) => backupIdPattern.test(id) && !id.includes('..'));
}
