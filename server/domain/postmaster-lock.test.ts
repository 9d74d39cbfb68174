import { describe, expect, it } from 'vitest';
import { decidePostmasterLock, parsePostmasterPid, type LockDecision, type PostmasterFacts } from './postmaster-lock';

const pidFile = { pid: 4100, dataDir: '/d/postgres' };
const base = { pgDir: '/d/postgres', pidFile, ownerPid: 4000 };

describe('decidePostmasterLock', () => {
  it.each<[string, Omit<PostmasterFacts, 'pgDir' | 'ownerPid'>, LockDecision['action'], RegExp?]>([
    ['no pid file: start', { pidFile: 'absent', postmaster: 'gone', owner: 'unknown' }, 'start'],
    ['postmaster dead (clean crash of both)', { pidFile, postmaster: 'gone', owner: 'dead' }, 'remove-stale'],
    ['postmaster dead, owner alive (its Postgres crashed)', { pidFile, postmaster: 'gone', owner: 'alive' }, 'remove-stale'],
    ['pid reused by another process', { pidFile, postmaster: 'other', owner: 'dead' }, 'remove-stale'],
    ['pid reused, no owner record', { pidFile, postmaster: 'other', owner: 'unknown' }, 'remove-stale'],
    ['orphaned postmaster of a killed Stowage', { pidFile, postmaster: 'ours', owner: 'dead' }, 'stop-orphan'],
    ['postmaster of a live Stowage', { pidFile, postmaster: 'ours', owner: 'alive' }, 'refuse', /still running \(Stowage pid 4000\)/],
    ['postmaster of this very process', { pidFile, postmaster: 'ours', owner: 'self' }, 'refuse', /started by this process/],
    ['postmaster started by hand', { pidFile, postmaster: 'ours', owner: 'unknown' }, 'refuse', /kill -INT 4100/],
    ['cannot tell what the pid is', { pidFile, postmaster: 'unverifiable', owner: 'dead' }, 'refuse', /cannot be checked/],
    ['unreadable pid file of a dead owner', { pidFile: 'unreadable', postmaster: 'gone', owner: 'dead' }, 'remove-stale'],
    ['unreadable pid file of a live owner', { pidFile: 'unreadable', postmaster: 'gone', owner: 'alive' }, 'refuse', /cannot be read/],
    ['unreadable pid file, no owner record', { pidFile: 'unreadable', postmaster: 'gone', owner: 'unknown' }, 'refuse', /cannot be read/],
  ])('%s', (_name, facts, action, message) => {
    const d = decidePostmasterLock({ ...base, ...facts });
    expect(d.action).toBe(action);
    if (d.action === 'stop-orphan') expect(d.pid).toBe(4100);
    if (message) expect(d.action === 'refuse' && d.message).toMatch(message);
  });
});

describe('parsePostmasterPid', () => {
  it.each([
    ['4100\n/d/postgres\n1764000000\n5432\n', { pid: 4100, dataDir: '/d/postgres' }],
    ['', undefined],
    ['4100\n', undefined],
    ['abc\n/d\n', undefined],
    ['-3\n/d\n', undefined],
  ])('%j', (text, want) => {
    expect(parsePostmasterPid(text)).toEqual(want);
  });
});
