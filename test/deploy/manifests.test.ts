// The deployment files (deploy/) and the agents' manifests of `stowage bootstrap`: the
// Kubernetes manifests run existing `stowage` subcommands with options they have, probe
// /livez and /readyz (the server over HTTPS, the controllers on their plain-HTTP health
// port) and use one image; every object passes an offline check against the API's types
// (k8s-models.ts), and `kubectl apply --dry-run=client` accepts them (against a
// discovery-only server: kubectl needs API discovery even in client dry run); the systemd
// units start existing subcommands with the `node` found on PATH and pass
// `systemd-analyze verify`, the loop drop-in included. Skips the kubectl and systemd parts
// with the reason when the tool is not installed.
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generateBootstrap } from '../../server/agent/bootstrap';
import { startDiscoveryStub, type DiscoveryStub } from '../kube/discovery-stub';
import { manifestErrors } from './k8s-models';
import { cliProgram } from '../../server/cli/program';

const root = path.resolve(import.meta.dirname, '..', '..');
const manifestFile = path.join(root, 'deploy', 'kubernetes', 'stowage.yaml');
const unitsDir = path.join(root, 'deploy', 'systemd');
const run = promisify(execFile);
const haveKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!haveKubectl) console.log('[skip] deploy manifests with kubectl: kubectl is not on PATH');
const haveSystemdAnalyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' }).status === 0;
if (!haveSystemdAnalyze) console.log('[skip] systemd-analyze verify of deploy/systemd: systemd-analyze is not on PATH');

/** The top-level subcommands of `stowage` and the long options of each, read from the commander program. */
function cliCommands(): Map<string, Set<string>> {
  return new Map(cliProgram().commands.map((c) => [c.name(), new Set(c.options.map((o) => o.long).filter((l): l is string => Boolean(l)))]));
}

type Obj = { kind: string; metadata: { name: string; namespace?: string }; spec?: any };
const objects: Obj[] = parseAllDocuments(readFileSync(manifestFile, 'utf8')).map((d) => {
  expect(d.errors).toEqual([]);
  return d.toJS() as Obj;
});
const workloads = objects.filter((o) => o.kind === 'Deployment');
const containers = workloads.flatMap((w) => [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers].map((c: any) => ({ workload: w.metadata.name, ...c })));

/** Checks that args (after the entrypoint `node bin/stowage.mjs`) name a subcommand and use only its options. */
function expectStowageArgs(args: string[], where: string): void {
  const commands = cliCommands();
  expect([...commands.keys()], 'the commander program was read').toEqual(expect.arrayContaining(['server', 'controllers', 'agent', 'bootstrap']));
  expect(commands.has(args[0]), `${where}: ${args[0]} is a stowage subcommand`).toBe(true);
  for (const a of args.slice(1).filter((x) => x.startsWith('--'))) expect(commands.get(args[0])!.has(a), `${where}: ${args[0]} has ${a}`).toBe(true);
}

describe('deploy/kubernetes/stowage.yaml', () => {
  it('holds a namespace, the server (3 replicas), its Service and the controllers (2 replicas), all in one namespace', () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      expect.arrayContaining(['Namespace/stowage-system', 'Deployment/stowage-server', 'Service/stowage', 'Deployment/stowage-controllers']),
    );
    expect(new Set(objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace))).toEqual(new Set(['stowage-system']));
    const byName = Object.fromEntries(workloads.map((w) => [w.metadata.name, w]));
    expect(byName['stowage-server'].spec.replicas).toBe(3);
    expect(byName['stowage-controllers'].spec.replicas).toBe(2);
    for (const w of workloads) expect(w.spec.template.metadata.labels).toMatchObject(w.spec.selector.matchLabels);
  });

  it('every stowage container runs an existing subcommand with options it has; one image for all', () => {
    const stowage = containers.filter((c) => !c.command);
    expect(stowage.map((c) => c.args[0]).sort()).toEqual(['controllers', 'server']);
    for (const c of stowage) expectStowageArgs(c.args, `${c.workload}/${c.name}`);
    expect(new Set(containers.map((c) => c.image)).size).toBe(1);
    expect(containers[0].image).toMatch(/^[^\s:]+(:[\w.-]+)?$/);
  });

  it('the server probes /readyz and /livez on the HTTPS API port, which the Service exposes with the dashboard port', () => {
    const server = containers.find((c) => c.workload === 'stowage-server' && c.name === 'server')!;
    const api = server.ports.find((p: any) => p.containerPort === 6443);
    expect(server.readinessProbe.httpGet).toEqual({ path: '/readyz', port: api.name, scheme: 'HTTPS' });
    expect(server.livenessProbe.httpGet).toEqual({ path: '/livez', port: api.name, scheme: 'HTTPS' });
    const env = Object.fromEntries(server.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect(env.STOWAGE_API_PORT).toBe('6443');
    expect(env.HOST).toBe('0.0.0.0');
    const service = objects.find((o) => o.kind === 'Service')!;
    expect(service.spec.ports.map((p: any) => [p.port, p.targetPort])).toEqual([
      [6443, 'api'],
      [Number(env.PORT), 'http'],
    ]);
    for (const c of containers.filter((x) => !x.command)) {
      expect(c.env.find((e: any) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef).toEqual({ name: 'stowage-database', key: 'DATABASE_URL' });
      expect(c.resources.requests).toBeDefined();
    }
  });

  it("the replicas' shared CA comes from a Secret, copied into the data dir where the server looks for it", () => {
    const server = workloads.find((w) => w.metadata.name === 'stowage-server')!.spec.template.spec;
    const pki = server.volumes.find((v: any) => v.secret);
    expect(pki.secret.secretName).toBe('stowage-pki');
    const dataDir = server.containers[0].env.find((e: any) => e.name === 'STOWAGE_DATA_DIR').value;
    expect(server.initContainers[0].command.join(' ')).toContain(`${dataDir}/pki/`);
    expect(server.initContainers[0].command.join(' ')).toMatch(/ca\.crt .*ca\.key/);
  });
});

describe('the controllers on Kubernetes', () => {
  it('probe /readyz and /livez over plain HTTP on the health port they are told to serve on all addresses', () => {
    const c = containers.find((x) => x.workload === 'stowage-controllers')!;
    const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
    expect(env.STOWAGE_HEALTH_HOST).toBe('0.0.0.0');
    const port = c.ports.find((p: any) => p.containerPort === Number(env.STOWAGE_HEALTH_PORT));
    expect(port?.name).toBeDefined();
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: port.name });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: port.name });
  });
});

const bootstrapped = (() => {
  const r = generateBootstrap({ storageClassMap: 'fast-disks:\n  hostDir: /mnt/fast-disks\n', serverUrl: 'https://stowage.example:6443', image: 'registry.example/stowage:0.1.0' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.output.objects as Obj[];
})();

describe('the offline check against the API types', () => {
  it.each([...objects, ...bootstrapped].map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))('%s has only known fields, of their types', (_, o) => {
    expect(manifestErrors(o)).toEqual([]);
  });
  it('catches a misspelt field, a wrong type and an unsupported value', () => {
    const ds = structuredClone(bootstrapped.find((o) => o.kind === 'DaemonSet')!);
    const c = ds.spec.template.spec.containers[0];
    c.volumeMounts[0].mountPropogation = 'Bidirectional';
    c.volumeMounts[1].mountPropagation = 'Shared';
    c.args = 'agent';
    expect(manifestErrors(ds)).toEqual([
      'DaemonSet.spec.template.spec.containers[0].args: must be a list',
      'DaemonSet.spec.template.spec.containers[0].volumeMounts[0].mountPropogation: unknown field (V1VolumeMount)',
      'DaemonSet.spec.template.spec.containers[0].volumeMounts[1].mountPropagation: unsupported value "Shared" (None, HostToContainer, Bidirectional)',
    ]);
  });
});

describe('the agent DaemonSet of stowage bootstrap', () => {
  const ds = bootstrapped.find((o) => o.kind === 'DaemonSet')!;
  const c = ds.spec.template.spec.containers[0];
  it('runs `stowage agent` with options it has, and reads MY_NODE_NAME (Kubernetes expands $(VAR) in args)', () => {
    expectStowageArgs(c.args, 'DaemonSet/stowage-agent');
    expect(c.args[c.args.indexOf('--node') + 1]).toBe('$(MY_NODE_NAME)');
    expect(c.env.map((e: any) => e.name)).toContain('MY_NODE_NAME');
  });
  it('mounts the state dir, the pods dir (Bidirectional) and the pool root it is told about', () => {
    const arg = (o: string) => c.args[c.args.indexOf(o) + 1];
    const mountAt = (p: string) => c.volumeMounts.find((m: any) => m.mountPath === p);
    const hostPathOf = (m: any) => ds.spec.template.spec.volumes.find((v: any) => v.name === m.name).hostPath.path;
    expect(hostPathOf(mountAt(arg('--state-dir')))).toBe(arg('--state-dir'));
    expect(hostPathOf(mountAt(arg('--pods-dir')))).toBe(arg('--pods-dir'));
    expect(mountAt(arg('--pods-dir')).mountPropagation).toBe('Bidirectional');
    expect(hostPathOf(mountAt(arg('--pool-root')))).toBe('/');
    // Bidirectional propagation is allowed only to a privileged container.
    expect(c.securityContext.privileged).toBe(true);
  });
});

describe('deploy/Containerfile', () => {
  it("installs the commands the agent runs, btrfs for its pools included, and exposes the controllers' health port", () => {
    const text = readFileSync(path.join(root, 'deploy', 'Containerfile'), 'utf8');
    const packages = text.match(/apt-get install -y --no-install-recommends ([^\\\n]+)/)![1].trim().split(/\s+/);
    expect(packages).toEqual(expect.arrayContaining(['util-linux', 'mount', 'e2fsprogs', 'btrfs-progs', 'hdparm']));
    const c = containers.find((x) => x.workload === 'stowage-controllers')!;
    expect(text).toMatch(new RegExp(`^EXPOSE .*\\b${c.ports[0].containerPort}\\b`, 'm'));
  });
});

describe('deploy/systemd', () => {
  const units = readdirSync(unitsDir).filter((f) => f.endsWith('.service'));
  it('has the server, the controllers and the agent template', () => {
    expect(units.sort()).toEqual(['stowage-agent@.service', 'stowage-controllers.service', 'stowage-server.service']);
  });
  it.each(units)('%s starts an existing subcommand with options it has, restarts always, reads /etc/stowage/stowage.env', (unit) => {
    const text = readFileSync(path.join(unitsDir, unit), 'utf8');
    const exec = text.match(/^ExecStart=(.*)$/m)![1].split(/\s+/);
    // The first `node` on PATH (Debian 12's /usr/bin/node is Node 18, too old): stowage.env may set PATH.
    expect(exec.slice(0, 3)).toEqual(['/usr/bin/env', 'node', '/opt/stowage/bin/stowage.mjs']);
    expectStowageArgs(exec.slice(3), unit);
    expect(text).toMatch(/^Restart=always$/m);
    expect(text).toMatch(/^EnvironmentFile=\/etc\/stowage\/stowage\.env$/m);
    expect(text).toMatch(/^After=network-online\.target/m);
    if (unit.startsWith('stowage-agent')) {
      expect(text).toMatch(/^KillMode=control-group$/m);
      expect(text).not.toMatch(/^(NoNewPrivileges|ProtectSystem|PrivateDevices)=/m);
      expect(exec).toContain('%i');
    } else {
      for (const k of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'PrivateTmp=yes']) expect(text).toMatch(new RegExp(`^${k}$`, 'm'));
    }
  });
  it('the controllers may write the README\'s host-path basePath; the loop drop-in gives root, the loop devices and the host\'s mounts', () => {
    expect(readFileSync(path.join(unitsDir, 'stowage-controllers.service'), 'utf8')).toMatch(/^ReadWritePaths=-\/var\/lib\/stowage-volumes$/m);
    const loop = readFileSync(path.join(unitsDir, 'stowage-controllers-loop.conf'), 'utf8');
    for (const k of ['User=root', 'ProtectSystem=no', 'PrivateTmp=no', 'PrivateDevices=no', 'DeviceAllow=/dev/loop-control rw', 'DeviceAllow=block-loop rw']) expect(loop).toMatch(new RegExp(`^${k}$`, 'm'));
  });

  it.runIf(haveSystemdAnalyze)('systemd-analyze verify accepts every unit, with the loop drop-in installed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-units-'));
    try {
      for (const u of units) copyFileSync(path.join(unitsDir, u), path.join(dir, u));
      mkdirSync(path.join(dir, 'stowage-controllers.service.d'));
      copyFileSync(path.join(unitsDir, 'stowage-controllers-loop.conf'), path.join(dir, 'stowage-controllers.service.d', 'loop.conf'));
      // By name, from a unit path of our own: drop-ins are read (a path would skip them).
      const r = spawnSync('systemd-analyze', ['verify', 'stowage-server.service', 'stowage-controllers.service', 'stowage-agent@node-a.service'], {
        encoding: 'utf8',
        env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` },
        timeout: 30_000,
      });
      expect(r.stderr.trim()).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

let stub: DiscoveryStub | undefined;

describe.runIf(haveKubectl)('deploy/kubernetes/stowage.yaml and kubectl', () => {
  beforeAll(async () => {
    stub = await startDiscoveryStub(
      {
        '/api/v1': [
          { name: 'namespaces', kind: 'Namespace', namespaced: false },
          { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
          { name: 'services', kind: 'Service', namespaced: true },
        ],
        '/apis/apps/v1': [{ name: 'deployments', kind: 'Deployment', namespaced: true }],
      },
      'stowage-deploy-',
    );
  });
  afterAll(async () => {
    await stub?.close();
  });

  it('kubectl apply --dry-run=client accepts every object', async () => {
    // --validate=false: the discovery-only server publishes no OpenAPI schema to validate against.
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', stub!.kubeconfig, 'apply', '--dry-run=client', '--validate=false', '-f', manifestFile]);
    expect(stderr.trim()).toBe('');
    expect(stdout.trim().split('\n').sort()).toEqual(
      ['deployment.apps/stowage-controllers', 'deployment.apps/stowage-server', 'namespace/stowage-system', 'service/stowage', 'serviceaccount/stowage'].map((n) => `${n} created (dry run)`),
    );
  });
});
