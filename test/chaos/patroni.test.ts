import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { etcdArgs, haproxyPostgresBackend, killPostgres, PATRONI_TIMING, patroniConfig, type EtcdMember, type PatroniNode } from '../../scripts/cluster/patroni';
import { addressing, ports } from '../../scripts/cluster/settings';

const a = addressing('c', 24000);
const p = ports(24000);
const etcd: EtcdMember[] = [0, 1, 2].map((i) => ({ name: `etcd${i + 1}`, address: a.pgHostAddress, clientPort: p.etcdClient(i), peerPort: p.etcdPeer(i), dataDir: `/d/etcd${i + 1}` }));
const nodes: PatroniNode[] = [1, 2].map((i) => ({ name: `pg${i}`, address: a.pgNodeAddress(i), pgPort: p.postgres(i - 1), restPort: p.patroni(i - 1), dataDir: `/pg/pg${i}`, runDir: '/pg' }));

describe('patroniConfig', () => {
  const c = JSON.parse(patroniConfig({ scope: 'stowage-c24000', etcd, subnet: a.pgSubnet, binDir: '/usr/lib/postgresql/15/bin' }, nodes[0]));
  it('keeps a synchronous standby and promotes only it', () => {
    expect(c.bootstrap.dcs.synchronous_mode).toBe(true);
    expect(c.bootstrap.dcs.postgresql.parameters.synchronous_commit).toBe('on');
    expect(c.bootstrap.dcs.maximum_lag_on_failover).toBeGreaterThan(0);
  });
  it('fails over fast enough for a first write within 15 s, within what Patroni accepts', () => {
    const { ttl, loop_wait, retry_timeout } = c.bootstrap.dcs;
    expect(loop_wait + 2 * retry_timeout).toBeLessThanOrEqual(ttl);
    // leader key expiry + one loop + HAProxy's two checks a second apart
    expect(ttl + loop_wait + 2).toBeLessThan(15);
    expect(PATRONI_TIMING.ttl).toBe(ttl);
  });
  it('talks to all three etcd members and listens only on its own addresses', () => {
    expect(c.etcd3.hosts).toEqual(etcd.map((m) => `${m.address}:${m.clientPort}`));
    expect(c.restapi.listen).toBe(`${nodes[0].address}:${nodes[0].restPort}`);
    expect(c.postgresql.listen).toBe(`127.0.0.1,${nodes[0].address}:${nodes[0].pgPort}`);
  });
  it('trusts loopback and the cluster subnet only', () => {
    const remote = (c.postgresql.pg_hba as string[]).filter((l) => l.startsWith('host')).map((l) => l.split(/\s+/)[3]);
    expect(new Set(remote)).toEqual(new Set(['127.0.0.1/32', a.pgSubnet]));
  });
  it('rejoins a failed old primary by itself (pg_rewind)', () => {
    expect(c.bootstrap.dcs.postgresql.use_pg_rewind).toBe(true);
    expect(c.bootstrap.dcs.postgresql.parameters.wal_log_hints).toBe('on');
  });
});

describe('haproxyPostgresBackend', () => {
  it("sends Postgres traffic to the node whose Patroni REST API answers /primary, cutting sessions of one marked down", () => {
    const b = haproxyPostgresBackend(nodes);
    expect(b).toContain('option httpchk GET /primary');
    expect(b).toContain('http-check expect status 200');
    expect(b).toContain('on-marked-down shutdown-sessions');
    for (const n of nodes) expect(b).toContain(`server ${n.name} ${n.address}:${n.pgPort} check port ${n.restPort}`);
    expect(b).not.toMatch(/disabled|backup/);
  });
});

describe('etcdArgs', () => {
  it('makes a three-member cluster', () => {
    const args = etcdArgs(etcd[1], etcd, 'stowage-c24000');
    const v = (f: string) => args[args.indexOf(f) + 1];
    expect(v('--name')).toBe('etcd2');
    expect(v('--initial-cluster').split(',')).toHaveLength(3);
    expect(v('--listen-client-urls')).toBe(`http://${a.pgHostAddress}:${p.etcdClient(1)}`);
    expect(v('--initial-cluster-state')).toBe('new');
  });
});

describe('killPostgres', () => {
  it('SIGKILLs a process and every child it started', async () => {
    const { spawn } = await import('node:child_process');
    // A parent with two children, like a postmaster with its backends.
    const parent = spawn('sh', ['-c', 'sleep 30 & sleep 30 & echo started; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise<void>((r) => parent.stdout.once('data', () => r()));
      const childrenOf = (pid: number) =>
        readdirSync('/proc')
          .filter((e) => /^\d+$/.test(e))
          .filter((e) => {
            try {
              const st = readFileSync(`/proc/${e}/stat`, 'utf8');
              return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid;
            } catch {
              return false;
            }
          })
          .map(Number);
      const kids = childrenOf(parent.pid!);
      expect(kids).toHaveLength(2);
      expect(killPostgres(parent.pid!)).toBe(3);
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z';
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 5000;
      while (kids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(kids.filter(alive)).toEqual([]);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
