// The top self-time functions of a V8 CPU profile (a .cpuprofile written by `node --cpu-prof`,
// e.g. by bench/write-path.ts --api-workers N with STOWAGE_BENCH_CPU_PROF=DIR):
//   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25]
// Prints each function's share of the profile's samples, with its file and line, and the
// share by package (node_modules/<name>, node: internals, Stowage's own files).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

const { values: args, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
if (positionals.length !== 1) {
  console.error('usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
// Shares are of the busy samples: `(idle)` (the event loop waiting) is counted apart.
const isIdle = (n: ProfileNode) => n.callFrame.functionName === '(idle)';
const idle = profile.nodes.reduce((n, x) => n + (isIdle(x) ? (x.hitCount ?? 0) : 0), 0);
const total = profile.nodes.reduce((n, x) => n + (isIdle(x) ? 0 : (x.hitCount ?? 0)), 0);
const ms = (profile.endTime - profile.startTime) / 1000;

/** Where a frame's code lives: a package, Node itself, or our own sources. */
function home(url: string): string {
  if (!url) return '(V8: native, GC, idle)';
  if (url.startsWith('node:')) return 'node: internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  const own = /\/(server|dist|bin)\//.exec(url);
  return own ? `stowage ${own[1]}/` : url.replace(/^file:\/\//, '');
}

const byFunction = new Map<string, number>();
const byHome = new Map<string, number>();
for (const n of profile.nodes) {
  const hits = n.hitCount ?? 0;
  if (!hits || isIdle(n)) continue;
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^file:\/\/.*?\/(node_modules|server|dist|bin)\//, '$1/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  byHome.set(home(f.url), (byHome.get(home(f.url)) ?? 0) + hits);
}
const share = (h: number) => `${((100 * h) / total).toFixed(1).padStart(5)} %`;
console.log(`${positionals[0]}: ${total} busy samples and ${idle} idle over ${(ms / 1000).toFixed(1)} s`);
console.log('self time by function:');
for (const [k, h] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) console.log(`  ${share(h)}  ${k}`);
console.log('self time by package:');
for (const [k, h] of [...byHome].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${share(h)}  ${k}`);
