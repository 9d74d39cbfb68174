// What a chaos run counts and finds, and how it prints it.
import type { Verdict } from './invariants';
import { say } from './common';

export type FaultKind = 'node-lost' | 'node-failover' | 'kill-server' | 'stop-server' | 'kill-controllers' | 'stop-controllers' | 'kill-agent' | 'cut-agent-network' | 'kill-postgres' | 'failover';

export interface Fault {
  kind: FaultKind;
  target: string;
  at: number;
  until: number;
}

export class Stats {
  requests = 0;
  retried = 0;
  failedAfterRetry = 0;
  failedByFault = new Map<string, number>();
  ok = 0;
}

export interface Report {
  verdicts: [string, Verdict][];
  faults: Map<FaultKind, number>;
  stats: Stats;
  figures: [string, string][];
  workload: [string, number][];
}

export function printReport(r: Report): void {
  say('');
  say('Faults injected (and client requests that failed after one retry, put down to each)');
  for (const [kind, n] of r.faults) say(`  ${kind.padEnd(20)} ${String(n).padStart(3)} injected, ${r.stats.failedByFault.get(kind) ?? 0} requests failed after one retry`);
  if (r.stats.failedByFault.get('none')) say(`  (no fault)           ${r.stats.failedByFault.get('none')} requests failed after one retry`);
  say('');
  say('Workload');
  say(`  client requests         ${r.stats.requests} (retried once: ${r.stats.retried}, failed after one retry: ${r.stats.failedAfterRetry})`);
  for (const [what, n] of r.workload) say(`  ${what.padEnd(24)}${n}`);
  say('');
  say('Invariants');
  for (const [name, v] of r.verdicts) {
    say(`  ${v.violations.length ? 'FAIL' : 'ok  '} ${name}: ${v.checked} checked, ${v.violations.length} violations`);
    for (const line of v.violations.slice(0, 10)) say(`         ${line}`);
  }
  say('');
  say('Figures');
  for (const [name, value] of r.figures) say(`  ${name}: ${value}`);
}
