// The npm registry mirror some machines use lacks the other platforms' native binaries of
// some packages (Next.js's SWC, @node-rs/bcrypt), so `npm install` there drops them from
// package-lock.json and `npm ci` then refuses the lock. This puts their (optional,
// platform-specific) entries back; npm skips them on other platforms and fetches them
// where they apply.
// Run after changing dependencies: node scripts/lock-platform-entries.mjs
import { readFileSync, writeFileSync } from 'node:fs';

/** Packages whose optionalDependencies are one native binary per platform, and the prefix of those names. */
const PARENTS = [
  { parent: 'next', prefix: '@next/swc-' },
  { parent: '@node-rs/bcrypt', prefix: '@node-rs/bcrypt-' },
];

/** os / cpu / libc of a platform suffix such as `linux-arm64-musl` or `win32-x64-msvc`. */
function platformOf(suffix) {
  const [os, cpu, abi] = suffix.split('-');
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [abi === 'musl' ? 'musl' : 'glibc'];
  return entry;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const { parent, prefix } of PARENTS) {
  const pkg = lock.packages[`node_modules/${parent}`];
  for (const [name, version] of Object.entries(pkg?.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (!name.startsWith(prefix) || lock.packages[key]) continue;
    const { os, cpu, libc } = platformOf(name.slice(prefix.length));
    lock.packages[key] = { version, cpu, ...(libc ? { libc } : {}), license: 'MIT', optional: true, os, engines: { node: '>= 10' } };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
