// The top self-time functions of a V8 CPU profile (a .cpuprofile written by `node --cpu-prof`,
// e.g. by bench/write-path.ts --api-workers N with STOWAGE_BENCH_CPU_PROF=DIR):
//   npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25] [--from S --to S] [--per N]
// Prints each function's share of the profile's samples, with its file and line, the share
// by package (node_modules/<name>, node: internals, Stowage's own files), and the share by
// area of the program (each sample counted once, in the first area found on its stack).
// --from/--to keep the samples taken between those seconds after the profile started (a
// phase of a bench); --per N also prints each area's milliseconds per unit (N creates, say).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values: args, positionals } = parseArgs({
  options: { top: { type: 'string', default: '25' }, from: { type: 'string' }, to: { type: 'string' }, per: { type: 'string' } },
  allowPositionals: true,
});
if (positionals.length !== 1) {
  console.error('usage: npx tsx bench/profile-summary.ts FILE.cpuprofile [--top 25] [--from S --to S] [--per N]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Where a frame's code lives: a package, Node itself, or our own sources. */
function home(url: string): string {
  if (!url) return '(V8: native, GC, idle)';
  if (url.startsWith('node:')) return 'node: internals';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  const own = /\/(server|dist|bin)\//.exec(url);
  return own ? `stowage ${own[1]}/` : url.replace(/^file:\/\//, '');
}

/**
 * Areas of the program, tried in order: a sample counts in the first whose test matches a
 * frame of its stack. Socket writes come first: on a busy machine a thread that wakes
 * Postgres is often descheduled inside the write, so those samples are mostly Postgres
 * running in its place, not this process's work.
 */
const own = (f: CallFrame) => /\/(server|dist|bin)\//.test(f.url);
const AREAS: [string, (f: CallFrame) => boolean][] = [
  ['socket writes (writev; mostly waiting for the CPU Postgres took)', (f) => f.functionName === 'writev' || f.functionName === 'writeBuffer'],
  ['garbage collector', (f) => f.functionName === '(garbage collector)'],
  ['pg client (protocol, rows)', (f) => /node_modules\/(pg|pg-protocol)\//.test(f.url)],
  ['shape check (zod)', (f) => f.functionName === 'checkShape'],
  ['watch streams', (f) => own(f) && ['serveWatch', 'redactEvents'].includes(f.functionName)],
  ['change feed', (f) => own(f) && ['pump', 'settle', 'watchChanges', 'toEvent'].includes(f.functionName)],
  ['controllers (reconciles)', (f) => own(f) && ['reconcile', 'process', 'worker', 'runBatch', 'syncVolume', 'syncClaim'].includes(f.functionName)],
  ['store write (flush, transaction)', (f) => own(f) && ['flushWrites', 'flush', 'inTransaction', 'runTransaction'].includes(f.functionName)],
  ['store write rules (prepare, compare)', (f) => own(f) && ['prepareUpdate', 'prepareCreate', 'planDelete'].includes(f.functionName)],
  ['API request (decode, validate, admit, respond)', (f) => own(f) && ['dispatch', 'route', 'serveResource', 'authenticate', 'decodeBody', 'recordUpdate', 'applyFieldValidation', 'sendKube'].includes(f.functionName)],
  ['async context (AsyncLocalStorage)', (f) => f.url === 'node:async_hooks'],
  ['HTTP and TLS (Node)', (f) => /^node:(_http|_tls|tls|https|http)/.test(f.url)],
];

const from = args.from !== undefined ? Number(args.from) * 1e6 : -Infinity;
const to = args.to !== undefined ? Number(args.to) * 1e6 : Infinity;
const byFunction = new Map<string, number>();
const byHome = new Map<string, number>();
const byArea = new Map<string, number>();
let total = 0;
let idle = 0;
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  const at = t - profile.startTime;
  if (at < from || at >= to) return;
  const n = byId.get(id)!;
  const f = n.callFrame;
  if (f.functionName === '(idle)') {
    idle++;
    return;
  }
  total++;
  const where = f.url ? `${f.url.replace(/^file:\/\/.*?\/(node_modules|server|dist|bin)\//, '$1/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  byHome.set(home(f.url), (byHome.get(home(f.url)) ?? 0) + 1);
  const stack: CallFrame[] = [];
  for (let s: number | undefined = id; s !== undefined; s = parent.get(s)) stack.push(byId.get(s)!.callFrame);
  const area = AREAS.find(([, test]) => stack.some(test))?.[0] ?? 'other';
  byArea.set(area, (byArea.get(area) ?? 0) + 1);
});
const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length) / 1000;
const share = (h: number) => `${((100 * h) / Math.max(1, total)).toFixed(1).padStart(5)} %`;
const per = args.per !== undefined ? Number(args.per) : undefined;
const perUnit = (h: number) => (per ? `  ${((h * interval) / per).toFixed(3).padStart(7)} ms per unit` : '');
const window = args.from !== undefined || args.to !== undefined ? ` between ${args.from ?? 0} s and ${args.to ?? 'the end'}` : '';
console.log(`${positionals[0]}: ${total} busy samples and ${idle} idle${window} (${interval.toFixed(2)} ms apart)`);
console.log('self time by function:');
for (const [k, h] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) console.log(`  ${share(h)}  ${k}`);
console.log('self time by package:');
for (const [k, h] of [...byHome].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${share(h)}  ${k}`);
console.log(`by area${per ? ` (per unit: ${per})` : ''}:`);
for (const [k, h] of [...byArea].sort((a, b) => b[1] - a[1])) console.log(`  ${share(h)}${perUnit(h)}  ${k}`);
