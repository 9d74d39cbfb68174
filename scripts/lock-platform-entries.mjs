// The npm registry mirror some machines use lacks Next.js's macOS and Windows SWC
// binaries, so `npm install` there drops them from package-lock.json and `npm ci`
// then refuses the lock. This puts their (optional, platform-specific) entries back;
// npm skips them on other platforms and fetches them where they apply.
// Run after changing dependencies: node scripts/lock-platform-entries.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const next = lock.packages['node_modules/next'];
const platforms = {
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'win32-arm64-msvc': { os: 'win32', cpu: 'arm64' },
  'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
};
let added = 0;
for (const [suffix, p] of Object.entries(platforms)) {
  const name = `@next/swc-${suffix}`;
  const version = next.optionalDependencies?.[name];
  const key = `node_modules/${name}`;
  if (!version || lock.packages[key]) continue;
  lock.packages[key] = { version, cpu: [p.cpu], license: 'MIT', optional: true, os: [p.os], engines: { node: '>= 10' } };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
