// What the agent and the embedded-Postgres start-up need from /proc/<pid>/stat (proc(5)):
// the state, the parent, the process group and the start time. The start time (clock ticks
// since boot) tells a process from a later one that got the same pid. No I/O here.

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie), T, ... */
  state: string;
  ppid: number;
  pgrp: number;
  /** Field 22, clock ticks after boot, as a decimal string. */
  startTime: string;
}

/** Parses one /proc/<pid>/stat line; undefined when it is not one. */
export function parseProcStat(text: string): ProcStat | undefined {
  // The command name (field 2) is in parentheses and may itself hold spaces and ")".
  const open = text.indexOf(' (');
  const close = text.lastIndexOf(') ');
  if (open < 1 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  const rest = text.slice(close + 2).trim().split(/\s+/);
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const [state, ppid, pgrp, startTime] = [rest[0], rest[1], rest[2], rest[19]];
  if (!Number.isInteger(pid) || !state || !/^\d+$/.test(ppid ?? '') || !/^-?\d+$/.test(pgrp ?? '') || !/^\d+$/.test(startTime ?? '')) return undefined;
  return { pid, state, ppid: Number(ppid), pgrp: Number(pgrp), startTime };
}

/** True for a process that exists and still runs (a zombie has finished). */
export function isLive(stat: ProcStat | undefined): stat is ProcStat {
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}
