import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addressing, chaosPortBase, parsePortBase, ports, readSettings, settingsFile, validSettings, writeSettings, type RecordedSettings } from '../../scripts/cluster/settings';

describe('parsePortBase', () => {
  it.each([
    { text: undefined, want: 24000 },
    { text: '', want: 24000 },
    { text: '26000', want: 26000 },
    { text: ' 26000 ', want: 26000 },
    { text: '1024', want: 1024 },
    { text: '65436', want: 65436 },
  ])('$text -> $want', ({ text, want }) => expect(parsePortBase(text, 24000)).toBe(want));
  it.each(['abc', '24000x', '-1', '1023', '65437', '2.5e4', '1e5', '0x5dc0', '99999999999999999999', '24000; rm -rf /'])('refuses %j with a clear message', (text) => {
    expect(() => parsePortBase(text, 24000)).toThrow(/^STOWAGE_CLUSTER_PORT_BASE must be a whole number from 1024 to 65436/);
  });
});

describe('chaosPortBase', () => {
  it.each([
    { env: {}, want: 25000 },
    { env: { STOWAGE_CLUSTER_PORT_BASE: '26000' }, want: 27000 },
    { env: { STOWAGE_CLUSTER_PORT_BASE: '65000' }, want: 64000 },
    { env: { STOWAGE_CLUSTER_PORT_BASE: '26000', STOWAGE_CHAOS_PORT_BASE: '30000' }, want: 30000 },
  ])('$env -> $want', ({ env, want }) => expect(chaosPortBase(env)).toBe(want));
  it('names the variable it refuses', () => {
    expect(() => chaosPortBase({ STOWAGE_CHAOS_PORT_BASE: 'x' })).toThrow(/^STOWAGE_CHAOS_PORT_BASE must be/);
    expect(() => chaosPortBase({ STOWAGE_CLUSTER_PORT_BASE: 'x' })).toThrow(/^STOWAGE_CLUSTER_PORT_BASE must be/);
  });
});

describe('addressing', () => {
  const all = (kind: 'c' | 'x', base: number) => {
    const a = addressing(kind, base);
    const p = ports(base);
    const names = [a.pgBridge, ...[1, 2, 3, 9].flatMap((i) => [a.namespace(i), a.hostIf(i), a.nodeIf(i), a.pgNamespace(i), a.pgHostIf(i), a.pgNodeIf(i)])];
    const addrs = [a.pgHostAddress, ...[1, 2, 3, 9].flatMap((i) => [a.hostAddress(i), a.nodeAddress(i), a.pgNodeAddress(i)])];
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(addrs).size).toBe(addrs.length);
    const portList = [p.dashboard, p.api, p.pg, ...[0, 1, 2, 8].flatMap((i) => [p.serverDashboard(i), p.serverApi(i), p.postgres(i), p.patroni(i), p.etcdClient(i), p.etcdPeer(i), p.controllersHealth(i)])];
    return { a, names, addrs, portList };
  };
  it.each([
    { name: 'two clusters 100 apart', x: ['c', 24000], y: ['c', 24100] },
    { name: 'a cluster and the chaos run on their defaults', x: ['c', 24000], y: ['x', 25000] },
    { name: 'bases 400 apart (the subnet wraps by four hundreds)', x: ['c', 24000], y: ['c', 24400] },
    { name: 'the lowest and highest bases', x: ['c', 1024], y: ['x', 65436] },
  ] as const)('$name share no namespace, interface or address', ({ x, y }) => {
    const a = all(x[0], x[1]);
    const b = all(y[0], y[1]);
    expect(a.names.filter((n) => b.names.includes(n))).toEqual([]);
    expect(a.addrs.filter((n) => b.addrs.includes(n))).toEqual([]);
    expect(a.portList.filter((n) => b.portList.includes(n))).toEqual([]);
    for (const n of [...a.names, ...b.names]) if (!n.startsWith('stowage-')) expect(n.length).toBeLessThanOrEqual(15);
    for (const ad of [...a.addrs, ...b.addrs]) {
      const [o1, o2, o3] = ad.split('.').map(Number);
      expect(o1).toBe(10);
      expect(o2).toBeGreaterThanOrEqual(66);
      expect(o2).toBeLessThan(254); // 10.254.* is the netns probe's
      expect(o3).toBeLessThan(256);
    }
  });
  it('names a cluster by its kind and base', () => {
    expect(addressing('c', 24000).namespace(1)).toBe('stowage-c24000-n1');
    expect(addressing('x', 25000).hostIf(2)).toBe('swx25000h2');
  });
});

describe('recorded settings', () => {
  const good: RecordedSettings = { kind: 'c', portBase: 26000, tag: 'c26000', servers: 3, controllers: 2, agents: 3, disksPerNode: 2, patroni: true };
  it('round-trips through the state directory', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-settings-'));
    try {
      expect(readSettings(dir)).toBeUndefined();
      writeSettings(dir, good);
      expect(readSettings(dir)).toEqual(good);
      writeFileSync(settingsFile(dir), '{"kind":');
      expect(() => readSettings(dir)).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it.each([
    { name: 'not an object', v: 'x' },
    { name: 'another kind', v: { ...good, kind: 'z' } },
    { name: 'a port base out of range', v: { ...good, portBase: 80, tag: 'c80' } },
    { name: 'a tag that is not the base', v: { ...good, tag: 'c24000' } },
    { name: 'too many agents', v: { ...good, agents: 10 } },
    { name: 'patroni not a flag', v: { ...good, patroni: 'yes' } },
  ])('refuses $name', ({ v }) => {
    expect(() => validSettings(v)).toThrow(/topology\.json is not a topology this version wrote/);
  });
});
