// `runtime.json` in the data dir tells other commands (user add, token create, an extra
// `stowage controllers`) where the running instance's database is. Only the process that
// wrote it may remove it: an extra process stopping must not orphan the main instance.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface RuntimeInfo {
  pid: number;
  databaseUrl: string;
  url?: string;
  /** The API address it really listens on. */
  apiUrl?: string;
}

export function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

/** The recorded instance, or undefined when there is none or the file is unreadable. */
export function readRuntimeFile(file: string): RuntimeInfo | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<RuntimeInfo>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.databaseUrl === 'string') {
      const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
      return { pid: v.pid, databaseUrl: v.databaseUrl, url: text(v.url), apiUrl: text(v.apiUrl) };
    }
  } catch {
    // unreadable: as if absent
  }
  return undefined;
}

/** Writes the file whole (temporary file, then rename), readable by its owner only. */
export function writeRuntimeFile(file: string, info: RuntimeInfo): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes the file only when `pid` wrote it; true when it was removed. */
export function removeRuntimeFileIfOwned(file: string, pid: number = process.pid): boolean {
  const info = readRuntimeFile(file);
  if (!info || info.pid !== pid) return false;
  rmSync(file, { force: true });
  return true;
}

/** True while the process `pid` exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
