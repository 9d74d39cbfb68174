// A real Stowage topology on one machine, for demos (`npm run cluster`) and the chaos run:
//
//   3 × etcd ◀── 2 × Patroni, each running a Postgres node in a namespace of its own on a
//                bridge; Patroni elects the primary and keeps the other a synchronous standby
//        ▲ one address: HAProxy's postgres front end (the node whose Patroni says /primary)
//   N × `stowage server`  ◀── HAProxy (API: TLS pass-through; dashboard: HTTP)
//   M × `stowage controllers` (one leads)
//   K × `stowage agent`, each in a network namespace of its own (a "node"), with its own
//       discovery directory (a bind mount private to it) of loop-device disks.
//
// Every process is supervised (Postgres by its Patroni): restarted a second after it dies, as
// systemd's Restart=always would. Everything it makes lives under `dir` (and the Postgres data under
// a directory the postgres user owns), and `down()` removes the namespaces and devices.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, chownSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parse } from 'yaml';
import { haproxyConfig } from './haproxy';
import { kubeRequest, readyz, type KubeTarget } from './kube';
import { createBridge, createBridgedLink, createLink, nodeLink, setLink, canUseNetns, type NodeLink } from './netns';
import { etcdArgs, etcdClientUrl, haproxyPostgresBackend, killPostgres, patroniConfig, patroniMissing, postmasterPid, type EtcdMember, type PatroniNode } from './patroni';
import { ensureDb, pgBinDir, postgresBinaries } from './postgres';
import { run, Supervised, waitUntil } from './processes';
import { addressing, AGENT_REPLICATION_PORT, ports, writeSettings, type Addressing } from './settings';
import { DISK_CLASS, POOL_CLASS, POOL_SNAPSHOT_CLASS, REPLICATED_CLASS, DISK_MIB, POOL_MIB, type NodeInfo, type TopologyOptions } from './options';
import { pgRootOf, teardown } from './teardown';
import { writeWipeScript } from './wipe-script';

export { DISK_CLASS, POOL_CLASS, POOL_SNAPSHOT_CLASS, REPLICATED_CLASS, teardown, type NodeInfo, type TopologyOptions };

export class Topology {
  readonly servers: Supervised[] = [];
  readonly controllers: Supervised[] = [];
  readonly agents: Supervised[] = [];
  readonly nodes: NodeInfo[] = [];
  haproxy: Supervised | undefined;
  readonly etcd: Supervised[] = [];
  readonly patroni: Supervised[] = [];
  readonly pgNodes: (PatroniNode & { link: NodeLink })[];
  readonly etcdMembers: EtcdMember[];
  private readonly pgRoot: string;
  readonly dataDir: string;
  kube: KubeTarget | undefined;

  readonly addr: Addressing;

  constructor(readonly o: TopologyOptions) {
    this.addr = addressing(o.kind, o.portBase);
    this.pgRoot = pgRootOf(this.addr.tag);
    const p = ports(o.portBase);
    this.pgNodes = [1, 2].map((i) => ({
      name: `pg${i}`,
      address: this.addr.pgNodeAddress(i),
      pgPort: p.postgres(i - 1),
      restPort: p.patroni(i - 1),
      dataDir: path.join(this.pgRoot, `pg${i}`),
      runDir: this.pgRoot,
      link: { ns: this.addr.pgNamespace(i), hostIf: this.addr.pgHostIf(i), nodeIf: this.addr.pgNodeIf(i), hostAddress: this.addr.pgHostAddress, nodeAddress: this.addr.pgNodeAddress(i) },
    }));
    this.etcdMembers = [0, 1, 2].map((i) => ({ name: `etcd${i + 1}`, address: this.addr.pgHostAddress, clientPort: p.etcdClient(i), peerPort: p.etcdPeer(i), dataDir: path.join(o.dir, 'etcd', `etcd${i + 1}`) }));
    this.dataDir = path.join(o.dir, 'data');
  }

  get ports() {
    return ports(this.o.portBase);
  }

  get apiUrl(): string {
    return `https://127.0.0.1:${this.ports.api}`;
  }

  get dashboardUrl(): string {
    return `http://127.0.0.1:${this.ports.dashboard}`;
  }

  get databaseUrl(): string {
    return `postgresql://postgres@127.0.0.1:${this.ports.pg}/stowage`;
  }

  /** What this machine lacks for the topology, or undefined when it has everything. */
  static async missing(): Promise<string | undefined> {
    const pg = postgresBinaries();
    if (!pg.available) return pg.why;
    const patroni = patroniMissing();
    if (patroni) return patroni;
    try {
      execFileSync('sh', ['-c', 'command -v haproxy && command -v losetup'], { stdio: 'ignore' });
    } catch {
      return 'haproxy or losetup not found (apt-get install haproxy)';
    }
    const ns = await canUseNetns();
    return ns.ok ? undefined : ns.why;
  }

  private stowageEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      DATABASE_URL: this.databaseUrl,
      STOWAGE_DATA_DIR: this.dataDir,
      STOWAGE_API_EXTRA_NAMES: this.nodes.map((n) => n.link.hostAddress).join(','),
      STOWAGE_NODE_NAME: `${this.addr.tag}-control`,
      NEXT_TELEMETRY_DISABLED: '1',
      ...extra,
    };
  }

  private stowage(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
    return run(process.execPath, [path.join(this.o.root, 'bin', 'stowage.mjs'), ...args], { cwd: this.o.root, env: this.stowageEnv(env), timeoutMs: 600_000 });
  }

  private supervise(name: string, command: string, args: string[], env: Record<string, string | undefined>): Supervised {
    mkdirSync(path.join(this.o.dir, 'logs'), { recursive: true });
    const p = new Supervised({ name, command, args, env, cwd: this.o.root, logFile: path.join(this.o.dir, 'logs', `${name}.log`) });
    p.start();
    return p;
  }

  async up(): Promise<void> {
    const { o } = this;
    mkdirSync(o.dir, { recursive: true });
    // Recorded before anything is made, so `down` finds what to remove even after a crash.
    writeSettings(o.dir, { kind: o.kind, portBase: o.portBase, tag: this.addr.tag, servers: o.servers, controllers: o.controllers, agents: o.agents, disksPerNode: o.disksPerNode, patroni: true });
    // Patroni bootstraps Postgres (initdb, a base backup, the election) while the rest is
    // made and Stowage compiles; the servers wait for it.
    const postgresReady = this.startPostgres();
    postgresReady.catch(() => {}); // awaited below; this only keeps an early failure from being "unhandled"

    o.log(`Nodes: ${o.agents} network namespaces ...`);
    for (let i = 1; i <= o.agents; i++) {
      const link = nodeLink(this.addr, i);
      await createLink(link);
      // With pools, the nodes replicate to each other through the host's ends of their links
      // (HAProxy there): a node reaches them by its default route to the host.
      if (o.pools) await run('ip', ['netns', 'exec', link.ns, 'ip', 'route', 'replace', 'default', 'via', link.hostAddress]);
      const dir = path.join(o.dir, 'nodes', `n${i}`);
      for (const d of ['disks', 'pods', 'agent']) mkdirSync(path.join(dir, d), { recursive: true });
      this.nodes.push({ name: `${this.addr.tag}-n${i}`, link, dir, disks: new Map() });
    }

    o.log('HAProxy ...');
    const cfg = path.join(o.dir, 'haproxy.cfg');
    writeFileSync(
      cfg,
      haproxyConfig({
        bindAddresses: ['127.0.0.1', ...this.nodes.map((n) => n.link.hostAddress)],
        dashboardPort: this.ports.dashboard,
        apiPort: this.ports.api,
        pgPort: this.ports.pg,
        statsSocket: this.statsSocket,
        servers: Array.from({ length: o.servers }, (_, i) => ({ name: `server${i + 1}`, dashboardPort: this.ports.serverDashboard(i), apiPort: this.ports.serverApi(i) })),
        postgres: [
          { name: 'pg1', port: this.pgNodes[0].pgPort, active: true },
          { name: 'pg2', port: this.pgNodes[1].pgPort, active: false },
        ],
        postgresBackend: haproxyPostgresBackend(this.pgNodes),
        ...(o.pools ? { replication: { port: this.ports.replication, nodes: this.nodes.map((n) => ({ name: n.name, hostAddress: n.link.hostAddress, nodeAddress: n.link.nodeAddress, agentPort: AGENT_REPLICATION_PORT })) } } : {}),
      }),
    );
    this.haproxy = this.supervise('haproxy', 'haproxy', ['-db', '-f', cfg], {});
    await waitUntil('HAProxy', async () => existsSync(this.statsSocket), 20_000);

    o.log('Compiling Stowage and building the dashboard when needed ...');
    await this.stowage(['version']);
    const { dashboardBuildNeeded } = await import('../../server/wiring/build');
    if (dashboardBuildNeeded(o.root)) await this.stowage(['build']);
    await postgresReady;
    await waitUntil('Postgres through HAProxy', async () => {
      await ensureDb(this.ports.pg, 'stowage');
      return true;
    }, 60_000, 500);

    o.log(`${o.servers} servers, ${o.controllers} controllers ...`);
    for (let i = 0; i < o.servers; i++) {
      this.servers.push(this.supervise(`server${i + 1}`, process.execPath, ['bin/stowage.mjs', 'server'], this.stowageEnv({ PORT: String(this.ports.serverDashboard(i)), STOWAGE_API_PORT: String(this.ports.serverApi(i)) })));
      // The first one migrates and makes the CA alone; the others then start together.
      if (i === 0) await waitUntil('server1 to be ready', () => readyz(`https://127.0.0.1:${this.ports.serverApi(0)}`), 180_000, 500);
    }
    for (let i = 0; i < o.controllers; i++) {
      this.controllers.push(this.supervise(`controllers${i + 1}`, process.execPath, ['bin/stowage.mjs', 'controllers'], this.stowageEnv({ STOWAGE_HEALTH_PORT: String(this.ports.controllersHealth(i)) })));
    }
    for (let i = 0; i < o.servers; i++) await waitUntil(`server${i + 1} to be ready`, () => readyz(`https://127.0.0.1:${this.ports.serverApi(i)}`), 120_000, 500);
    await this.stowage(['kubeconfig', 'admin', '-o', this.kubeconfigPath, '--server', this.apiUrl]);
    const kc = parse(readFileSync(this.kubeconfigPath, 'utf8'));
    this.kube = {
      server: this.apiUrl,
      caPem: Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'),
      token: kc.users[0].user.token,
    };
    await waitUntil('the API through HAProxy', async () => (await kubeRequest(this.kube!, 'GET', '/version')).status === 200, 30_000);

    o.log(`Disks (${o.disksPerNode} loop devices per node) and the local-volume configuration ...`);
    const discovery = path.join(o.dir, 'discovery');
    mkdirSync(discovery, { recursive: true });
    writeWipeScript(this.o.dir);
    for (const n of this.nodes) {
      for (let d = 1; d <= o.disksPerNode; d++) {
        const img = path.join(n.dir, `disk${d}.img`);
        writeFileSync(img, '');
        execFileSync('truncate', ['-s', `${DISK_MIB}M`, img]);
        const dev = execFileSync('losetup', ['-f', '--show', img], { encoding: 'utf8' }).trim();
        writeFileSync(path.join(n.dir, `disk${d}.dev`), dev);
        symlinkSync(dev, path.join(n.dir, 'disks', `disk${d}`));
        n.disks.set(`disk${d}`, dev);
      }
    }
    await this.applyDiskClass(discovery);
    if (o.pools) await this.makePools();

    o.log('Agents ...');
    for (const [i, n] of this.nodes.entries()) {
      execFileSync(process.execPath, [path.join(o.root, 'bin', 'stowage.mjs'), 'node', 'add', n.name, '-o', path.join(n.dir, 'token')], { cwd: o.root, env: { ...process.env, ...this.stowageEnv() }, stdio: 'ignore' });
      // Inside its namespace (ip netns exec gives it a mount namespace of its own too), the
      // node's own disks appear at the one discovery path the configuration names.
      const binds = [path.join(n.dir, 'disks'), discovery, ...(o.pools ? [this.poolMount(n), this.poolPath] : [])];
      const agentArgs = [
        'netns', 'exec', n.link.ns, 'sh', '-c', `${o.pools ? 'mount --bind "$3" "$4" && ' : ''}mount --bind "$1" "$2" && shift ${binds.length} && exec "$@"`, 'sh',
        ...binds,
        process.execPath, path.join(o.root, 'bin', 'stowage.mjs'), 'agent',
        '--server', `https://${n.link.hostAddress}:${this.ports.api}`,
        '--token-file', path.join(n.dir, 'token'),
        '--ca-file', path.join(this.dataDir, 'pki', 'ca.crt'),
        '--pods-dir', path.join(n.dir, 'pods'),
        '--state-dir', path.join(n.dir, 'agent'),
        ...(o.pools ? ['--replication-listen', `0.0.0.0:${AGENT_REPLICATION_PORT}`, '--replication-advertise', `${n.link.hostAddress}:${this.ports.replication}`] : []),
      ];
      this.agents.push(this.supervise(`agent${i + 1}`, 'ip', agentArgs, { STOWAGE_NODE_NAME: n.name }));
    }
    await waitUntil('every node Ready', async () => {
      const r = await kubeRequest(this.kube!, 'GET', '/api/v1/nodes');
      const ready = (r.body?.items ?? []).filter((x: any) => this.nodes.some((n) => n.name === x.metadata.name) && x.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === this.nodes.length;
    }, 120_000, 1000);
    await waitUntil('every disk offered', async () => (await this.localVolumes()).length >= this.nodes.length * o.disksPerNode, 120_000, 1000);
    // The standby was cloned and made synchronous while the rest started.
    await waitUntil('a synchronous standby', () => this.postgresHealthy(), 120_000, 250);
    this.writeState();
  }

  get statsSocket(): string {
    return path.join(this.o.dir, 'haproxy.sock');
  }

  get kubeconfigPath(): string {
    return path.join(this.o.dir, 'admin.kubeconfig');
  }

  get wipeLog(): string {
    return path.join(this.o.dir, 'wipes', 'wipes.log');
  }

  get wipeViolations(): string {
    return path.join(this.o.dir, 'wipes', 'overlaps.log');
  }

  private async applyDiskClass(discovery: string): Promise<void> {
    const k = this.kube!;
    const map = `${DISK_CLASS}:
  hostDir: ${JSON.stringify(discovery)}
  volumeMode: Block
  blockCleanerCommand: [${JSON.stringify(path.join(this.o.dir, 'wipe.sh'))}]
`;
    const cm = await kubeRequest(k, 'GET', '/api/v1/namespaces/kube-system/configmaps/local-volume-config');
    if (cm.status !== 200) throw new Error(`local-volume-config: ${cm.status} ${JSON.stringify(cm.body)}`);
    const put = await kubeRequest(k, 'PUT', '/api/v1/namespaces/kube-system/configmaps/local-volume-config', { ...cm.body, data: { storageClassMap: map } });
    if (put.status !== 200) throw new Error(`local-volume-config: ${put.status} ${JSON.stringify(put.body)}`);
    const sc = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: DISK_CLASS },
      provisioner: 'kubernetes.io/no-provisioner',
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
    };
    const r = await kubeRequest(k, 'POST', '/apis/storage.k8s.io/v1/storageclasses', sc);
    if (r.status !== 201 && r.status !== 409) throw new Error(`StorageClass ${DISK_CLASS}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Where every agent sees its own node's pool (an empty directory outside the agents). */
  get poolPath(): string {
    return path.join(this.o.dir, 'pool');
  }

  /** Where node `n`'s pool is mounted on the host (what its agent sees at poolPath). */
  poolMount(n: NodeInfo): string {
    return path.join(n.dir, 'pool');
  }

  /** A btrfs pool per node (quotas on), the class over them and its snapshot class. */
  private async makePools(): Promise<void> {
    mkdirSync(this.poolPath, { recursive: true });
    for (const n of this.nodes) {
      const img = path.join(n.dir, 'pool.img');
      writeFileSync(img, '');
      execFileSync('truncate', ['-s', `${POOL_MIB}M`, img]);
      const dev = execFileSync('losetup', ['-f', '--show', img], { encoding: 'utf8' }).trim();
      execFileSync('mkfs.btrfs', ['-q', '-f', dev], { stdio: 'ignore' });
      mkdirSync(this.poolMount(n), { recursive: true });
      execFileSync('mount', [dev, this.poolMount(n)]);
      execFileSync('btrfs', ['quota', 'enable', this.poolMount(n)]);
    }
    const k = this.kube!;
    const sc = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: POOL_CLASS }, provisioner: 'stowage.io/btrfs', parameters: { pool: this.poolPath }, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' };
    const r = await kubeRequest(k, 'POST', '/apis/storage.k8s.io/v1/storageclasses', sc);
    if (r.status !== 201 && r.status !== 409) throw new Error(`StorageClass ${POOL_CLASS}: ${r.status} ${JSON.stringify(r.body)}`);
    const rc = { ...sc, metadata: { name: REPLICATED_CLASS }, parameters: { pool: this.poolPath, replicas: '2', replicationInterval: '5s' } };
    const rr = await kubeRequest(k, 'POST', '/apis/storage.k8s.io/v1/storageclasses', rc);
    if (rr.status !== 201 && rr.status !== 409) throw new Error(`StorageClass ${REPLICATED_CLASS}: ${rr.status} ${JSON.stringify(rr.body)}`);
    const vsc = { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: POOL_SNAPSHOT_CLASS }, driver: 'stowage.io/btrfs', deletionPolicy: 'Delete' };
    const v = await kubeRequest(k, 'POST', '/apis/snapshot.storage.k8s.io/v1/volumesnapshotclasses', vsc);
    if (v.status !== 201 && v.status !== 409) throw new Error(`VolumeSnapshotClass ${POOL_SNAPSHOT_CLASS}: ${v.status} ${JSON.stringify(v.body)}`);
  }

  /** The node is lost: its agent stopped for good, its pool unmounted and its image removed. */
  async loseNode(i: number): Promise<void> {
    const n = this.nodes[i];
    await this.agents[i].stop();
    await run('umount', ['-l', this.poolMount(n)], { allowFail: true });
    const list = execFileSync('losetup', ['-j', path.join(n.dir, 'pool.img')], { encoding: 'utf8' });
    for (const line of list.split('\n')) {
      const m = /^(\/dev\/loop\d+):/.exec(line);
      if (m) await run('losetup', ['-d', m[1]], { allowFail: true });
    }
    rmSync(path.join(n.dir, 'pool.img'), { force: true });
    rmSync(this.poolMount(n), { recursive: true, force: true });
  }

  /** The cluster's local PVs (the agents' disks). */
  async localVolumes(): Promise<any[]> {
    const r = await kubeRequest(this.kube!, 'GET', '/api/v1/persistentvolumes');
    return (r.body?.items ?? []).filter((pv: any) => pv.spec?.storageClassName === DISK_CLASS);
  }

  /** The loop device behind a local PV (its node and entry name), for reading what is on it. */
  deviceOf(nodeName: string, entryPath: string): string | undefined {
    return this.nodes.find((n) => n.name === nodeName)?.disks.get(path.basename(entryPath));
  }

  /** etcd (three members), then Patroni on both Postgres nodes; returns once one leads with a synchronous standby. */
  private async startPostgres(): Promise<void> {
    const { o } = this;
    o.log('etcd (3 members) and Patroni (2 Postgres nodes, synchronous mode) ...');
    await createBridge(this.addr.pgBridge, `${this.addr.pgHostAddress}/24`);
    for (const n of this.pgNodes) await createBridgedLink({ ...n.link, nodeAddress: `${n.address}/24` }, this.addr.pgBridge);
    for (const m of this.etcdMembers) {
      mkdirSync(path.dirname(m.dataDir), { recursive: true });
      this.etcd.push(this.supervise(m.name, 'etcd', etcdArgs(m, this.etcdMembers, `stowage-${this.addr.tag}`), {}));
    }
    await waitUntil('etcd to be healthy', async () => {
      const r = await fetch(`${etcdClientUrl(this.etcdMembers[0])}/health`, { signal: AbortSignal.timeout(2000) });
      return r.ok && (await r.json()).health === 'true';
    }, 60_000, 500);
    mkdirSync(this.pgRoot, { recursive: true, mode: 0o700 });
    const id = (f: string) => Number(execFileSync('id', [f, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(this.pgRoot, id('-u'), id('-g'));
    const binDir = pgBinDir();
    if (!binDir) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
    for (const n of this.pgNodes) {
      const cfg = path.join(this.pgRoot, `${n.name}.yml`);
      writeFileSync(cfg, patroniConfig({ scope: `stowage-${this.addr.tag}`, etcd: this.etcdMembers, subnet: this.addr.pgSubnet, binDir }, n), { mode: 0o600 });
      chownSync(cfg, id('-u'), id('-g'));
      // setpriv execs (no process left between us and Patroni): a SIGKILL reaches Patroni itself.
      this.patroni.push(this.supervise(`patroni-${n.name}`, 'ip', ['netns', 'exec', n.link.ns, 'setpriv', '--reuid=postgres', '--regid=postgres', '--init-groups', 'patroni', cfg], { HOME: this.pgRoot }));
    }
    await waitUntil('a Patroni leader', async () => (await this.primaryIndex()) !== undefined, 180_000, 250);
  }

  /** What node `n`'s Patroni says it is: primary, sync (the synchronous standby), replica, or down. */
  async patroniRole(n: PatroniNode): Promise<'primary' | 'sync' | 'replica' | 'down'> {
    const get = async (p: string) => {
      try {
        return (await fetch(`http://${n.address}:${n.restPort}${p}`, { signal: AbortSignal.timeout(1500) })).status;
      } catch {
        return 0;
      }
    };
    if ((await get('/primary')) === 200) return 'primary';
    if ((await get('/sync')) === 200) return 'sync';
    return (await get('/replica')) === 200 ? 'replica' : 'down';
  }

  /** The node whose Patroni says it is the primary (index), or undefined. */
  async primaryIndex(): Promise<number | undefined> {
    const roles = await Promise.all(this.pgNodes.map((n) => this.patroniRole(n)));
    const i = roles.indexOf('primary');
    return i < 0 ? undefined : i;
  }

  // ---- faults: done to the processes and the network only; Patroni and HAProxy react ----

  /** SIGKILLs the primary's Postgres processes (its Patroni restarts it, or the standby takes over). */
  async killPrimaryPostgres(): Promise<string> {
    const i = await this.primaryIndex();
    if (i === undefined) throw new Error('no primary to kill');
    const pid = postmasterPid(this.pgNodes[i].dataDir);
    if (pid) killPostgres(pid);
    return this.pgNodes[i].name;
  }

  /**
   * The primary's node dies: its Patroni and its postmaster are SIGKILLed and its link cut,
   * without telling anyone. The supervisor restarts Patroni (cut off until `restore`).
   */
  async killPrimaryNode(): Promise<{ name: string; restore: () => Promise<void> }> {
    const i = await this.primaryIndex();
    if (i === undefined) throw new Error('no primary to kill');
    const n = this.pgNodes[i];
    await setLink(n.link, false);
    this.patroni[i].signal('SIGKILL');
    const pid = postmasterPid(n.dataDir);
    if (pid) killPostgres(pid);
    return { name: n.name, restore: () => setLink(n.link, true) };
  }

  /** Whether both Postgres nodes are back: one primary, one synchronous standby. */
  async postgresHealthy(): Promise<boolean> {
    const roles = await Promise.all(this.pgNodes.map((n) => this.patroniRole(n)));
    return roles.includes('primary') && roles.includes('sync');
  }

  /** The node is gone for a while: its agent stopped and its network cut (its pool stays). */
  async takeNodeDown(i: number): Promise<void> {
    await this.agents[i].stop(2_000);
    await setLink(this.nodes[i].link, false);
  }

  /** The node returns: its network back and its agent started again. */
  async bringNodeBack(i: number): Promise<void> {
    await setLink(this.nodes[i].link, true);
    this.agents[i].resume();
  }

  setNodeLink(i: number, up: boolean): Promise<void> {
    return setLink(this.nodes[i].link, up);
  }

  /** The first admin's password, as the first server printed it once (a demo cluster only). */
  private adminPassword(): string | undefined {
    try {
      return /Password:\s+(\S+)/.exec(readFileSync(path.join(this.o.dir, 'logs', 'server1.log'), 'utf8'))?.[1];
    } catch {
      return undefined;
    }
  }

  writeState(): void {
    writeFileSync(
      path.join(this.o.dir, 'state.json'),
      JSON.stringify(
        {
          dashboard: this.dashboardUrl,
          adminPassword: this.adminPassword(),
          api: this.apiUrl,
          database: this.databaseUrl,
          kubeconfig: this.kubeconfigPath,
          supervisor: process.pid,
          postgres: { nodes: this.pgNodes.map((n) => ({ name: n.name, namespace: n.link.ns, address: `${n.address}:${n.pgPort}`, patroni: `http://${n.address}:${n.restPort}` })), etcd: this.etcdMembers.map(etcdClientUrl) },
          processes: [...this.etcd, ...this.patroni, this.haproxy, ...this.servers, ...this.controllers, ...this.agents].filter(Boolean).map((p) => ({ name: p!.name, pid: p!.pid, starts: p!.starts })),
          nodes: this.nodes.map((n) => ({ name: n.name, namespace: n.link.ns, address: n.link.nodeAddress, disks: Object.fromEntries(n.disks) })),
        },
        null,
        2,
      ),
      { mode: 0o600 },
    );
  }

  /** Stops everything and removes what `up` made outside `dir` (namespaces, loop devices, Postgres data). */
  async down(): Promise<void> {
    for (const l of this.nodes.map((n) => n.link)) await setLink(l, true).catch(() => {});
    await Promise.all([...this.agents, ...this.controllers, ...this.servers].map((p) => p.stop()));
    await this.haproxy?.stop();
    for (const n of this.pgNodes) await setLink(n.link, true).catch(() => {});
    // Patroni stops its Postgres on SIGTERM; etcd last.
    await Promise.all(this.patroni.map((p) => p.stop(30_000)));
    await Promise.all(this.etcd.map((p) => p.stop()));
    await teardown(this.o);
  }
}
