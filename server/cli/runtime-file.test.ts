import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRuntimeFile, removeRuntimeFileIfOwned, runtimeFilePath, writeRuntimeFile } from './runtime-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-runtime-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runtime.json', () => {
  it.each([
    { who: 'the process that wrote it', writer: 4242, remover: 4242, removed: true },
    { who: 'another process (an extra `stowage controllers`)', writer: 4242, remover: 5151, removed: false },
  ])('is removed by $who: $removed', ({ writer, remover, removed }) => {
    const file = runtimeFilePath(dir);
    writeRuntimeFile(file, { pid: writer, databaseUrl: 'postgres://x' });
    expect(removeRuntimeFileIfOwned(file, remover)).toBe(removed);
    expect(readRuntimeFile(file) === undefined).toBe(removed);
  });

  it.each(['', 'not json', '{"pid":"1","databaseUrl":"x"}', '{"pid":-1,"databaseUrl":"x"}', '{"pid":1}'])('unreadable content %j counts as absent and is left alone', (text) => {
    const file = runtimeFilePath(dir);
    writeFileSync(file, text);
    expect(readRuntimeFile(file)).toBeUndefined();
    expect(removeRuntimeFileIfOwned(file, 1)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
