// Postgres under Patroni with etcd, for the cluster and the chaos run: three etcd members on
// the host, and two Postgres nodes, each run by its Patroni in a network namespace of its own
// on a bridge (so cutting a node's link cuts it off from etcd, its peer and HAProxy alike).
// Patroni elects the leader through etcd, keeps a synchronous standby, and promotes that
// standby by itself when the leader's key expires; HAProxy sends Postgres traffic to the node
// whose Patroni REST API answers 200 on /primary. Nothing here promotes or moves anything.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Leader key TTL, the loop and the DCS retry (Patroni wants loop_wait + 2 * retry_timeout <= ttl). */
export const PATRONI_TIMING = { ttl: 7, loop_wait: 1, retry_timeout: 3 };

export interface EtcdMember {
  name: string;
  address: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
}

export const etcdClientUrl = (m: EtcdMember) => `http://${m.address}:${m.clientPort}`;

/** The command line of one member of a new three-member cluster. */
export function etcdArgs(m: EtcdMember, all: readonly EtcdMember[], token: string): string[] {
  const peer = (x: EtcdMember) => `http://${x.address}:${x.peerPort}`;
  return [
    '--name', m.name,
    '--data-dir', m.dataDir,
    '--listen-client-urls', etcdClientUrl(m),
    '--advertise-client-urls', etcdClientUrl(m),
    '--listen-peer-urls', peer(m),
    '--initial-advertise-peer-urls', peer(m),
    '--initial-cluster', all.map((x) => `${x.name}=${peer(x)}`).join(','),
    '--initial-cluster-state', 'new',
    '--initial-cluster-token', token,
    // A busy two-core machine: slower heartbeats than the default keep the members from
    // electing a new leader every time a CPU-heavy test runs beside them.
    '--heartbeat-interval', '200',
    '--election-timeout', '2000',
    '--log-level', 'warn',
  ];
}

export interface PatroniNode {
  name: string;
  /** Its address on the bridge (inside its namespace). */
  address: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  /** A directory the postgres user owns, for the socket and the pgpass file. */
  runDir: string;
}

export interface PatroniCluster {
  scope: string;
  etcd: readonly EtcdMember[];
  /** The bridge's subnet (CIDR), the only remote addresses Postgres trusts besides loopback. */
  subnet: string;
  binDir: string;
}

/** Patroni's YAML (JSON is YAML) for one node: synchronous mode, pg_rewind, trust on our subnet only. */
export function patroniConfig(c: PatroniCluster, n: PatroniNode): string {
  const config = {
    scope: c.scope,
    namespace: '/stowage/',
    name: n.name,
    restapi: { listen: `${n.address}:${n.restPort}`, connect_address: `${n.address}:${n.restPort}` },
    etcd3: { hosts: c.etcd.map((m) => `${m.address}:${m.clientPort}`) },
    bootstrap: {
      dcs: {
        ...PATRONI_TIMING,
        maximum_lag_on_failover: 1048576,
        // Only the synchronous standby may be promoted: every acknowledged commit is on it.
        // Not strict: once the old primary is gone, the new one accepts writes alone (strict
        // would block every write until a second node is back).
        synchronous_mode: true,
        synchronous_mode_strict: false,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            wal_log_hints: 'on',
            max_connections: 300,
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            synchronous_commit: 'on',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }, { 'auth-host': 'trust' }],
    },
    postgresql: {
      listen: `127.0.0.1,${n.address}:${n.pgPort}`,
      connect_address: `${n.address}:${n.pgPort}`,
      data_dir: n.dataDir,
      bin_dir: c.binDir,
      pgpass: `${n.runDir}/pgpass-${n.name}`,
      authentication: {
        superuser: { username: 'postgres' },
        replication: { username: 'postgres' },
        rewind: { username: 'postgres' },
      },
      parameters: { unix_socket_directories: n.runDir, fsync: 'on' },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', `host all all ${c.subnet} trust`, `host replication all 127.0.0.1/32 trust`, `host replication all ${c.subnet} trust`],
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** HAProxy's Postgres backend: the node whose Patroni says it is the primary. */
export function haproxyPostgresBackend(nodes: readonly PatroniNode[]): string {
  return [
    'backend postgres',
    '  mode tcp',
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((n) => `  server ${n.name} ${n.address}:${n.pgPort} check port ${n.restPort}`),
  ].join('\n');
}

/** What the machine lacks for Patroni with etcd, or undefined. */
export function patroniMissing(): string | undefined {
  for (const b of ['patroni', 'etcd']) {
    try {
      execFileSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' });
    } catch {
      return `${b} not found (apt-get install patroni etcd-server etcd-client)`;
    }
  }
  try {
    // Patroni's etcd support comes in a separate package (its interpreter is Debian's python3).
    execFileSync('/usr/bin/python3', ['-c', 'import etcd'], { stdio: 'ignore' });
  } catch {
    return "Patroni's etcd client is missing (apt-get install python3-etcd)";
  }
  return undefined;
}

/** The postmaster's pid from its data directory, or undefined. */
export function postmasterPid(dataDir: string): number | undefined {
  const f = `${dataDir}/postmaster.pid`;
  if (!existsSync(f)) return undefined;
  const pid = Number(readFileSync(f, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 1 ? pid : undefined;
}

/** SIGKILLs a postmaster and every process it started (backends, walsenders, checkpointer...). */
export function killPostgres(postmaster: number): number {
  const children: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ")".
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) children.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  let killed = 0;
  for (const pid of [postmaster, ...children]) {
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // gone already
    }
  }
  return killed;
}
