// How the chaos run looks at the topology: polls, probe writes, convergence, the database's history, the disks' signatures.
import { closeSync, openSync, readSync, writeSync, fsyncSync } from 'node:fs';
import pg from 'pg';
import { kubeRequest, type KubeTarget } from '../cluster/kube';
import { Topology } from '../cluster/topology';
import { type AckedWrite, type CommittedChange, type RecordedChange } from './invariants';
import { NS, sleep } from './common';

/** Polls a path until `ok` says so (or the time is up); the object, or undefined. */
export async function waitFor(k: KubeTarget, p: string, ok: (obj: any, status: number) => boolean, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await kubeRequest(k, 'GET', p, undefined, 10_000).catch(() => undefined);
    if (r && ok(r.body, r.status)) return r.body ?? true;
    await sleep(500);
  }
  return undefined;
}

/** Writes a ConfigMap every 200 ms until one is acknowledged; when that happened (undefined: not within 60 s). */
export async function firstWrite(k: KubeTarget, what: string): Promise<number | undefined> {
  const deadline = Date.now() + 60_000;
  for (let i = 0; Date.now() < deadline; i++) {
    const r = await kubeRequest(k, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${what}-${Date.now()}-${i}` } }, 3000).catch(() => undefined);
    if (r?.status === 201) return Date.now();
    await sleep(200);
  }
  return undefined;
}

/**
 * When everything converged (every process up, nodes Ready, claims Bound, pods Running,
 * disks offered), or undefined at the deadline; `waiting` says what the last look still
 * waited for, so a run that does not converge says why.
 */
export async function convergence(t: Topology, k: KubeTarget, timeoutMs: number): Promise<{ at?: number; waiting: string }> {
  const deadline = Date.now() + timeoutMs;
  const disks = t.nodes.length * t.o.disksPerNode;
  let waiting = 'nothing looked at yet';
  const some = (xs: string[]) => `${xs.slice(0, 5).join('; ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`;
  while (Date.now() < deadline) {
    const why = await (async (): Promise<string | undefined> => {
      const down = [...t.etcd, ...t.patroni, ...t.servers, ...t.controllers, ...t.agents].filter((p) => !p.pid).map((p) => p.name);
      if (down.length > 0) return `processes down: ${down.join(', ')}`;
      if (!(await t.postgresHealthy())) return 'Postgres: no primary with a synchronous standby yet';
      const nodes = await kubeRequest(k, 'GET', '/api/v1/nodes', undefined, 5000);
      const notReady = t.nodes.filter((x) => !(nodes.body?.items ?? []).some((n: any) => n.metadata.name === x.name && n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')));
      if (notReady.length > 0) return `nodes not Ready: ${notReady.map((n) => n.name).join(', ')}`;
      const pvcs = await kubeRequest(k, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, undefined, 5000);
      const unbound = (pvcs.body?.items ?? []).filter((c: any) => c.status?.phase !== 'Bound' && !c.metadata.deletionTimestamp);
      if (unbound.length > 0) {
        return `claims not Bound: ${some(unbound.map((c: any) => `${c.metadata.name} ${c.status?.phase ?? '-'} volume=${c.spec?.volumeName ?? '-'} node=${c.metadata.annotations?.['volume.kubernetes.io/selected-node'] ?? '-'} ${c.metadata.annotations?.['stowage.io/binding-explanation'] ?? ''}`.trim()))}`;
      }
      const pods = await kubeRequest(k, 'GET', `/api/v1/namespaces/${NS}/pods`, undefined, 5000);
      const notRunning = (pods.body?.items ?? []).filter((p: any) => p.status?.phase !== 'Running' && !p.metadata.deletionTimestamp);
      if (notRunning.length > 0) {
        return `pods not Running: ${some(notRunning.map((p: any) => `${p.metadata.name} ${p.status?.phase ?? '-'} node=${p.spec?.nodeName ?? '-'} ${(p.status?.conditions ?? []).map((c: any) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`).join(' ')}`))}`;
      }
      const pvs = (await t.localVolumes()).filter((pv) => !pv.metadata.deletionTimestamp);
      const off = pvs.filter((pv) => pv.status?.phase !== 'Available' && pv.status?.phase !== 'Bound');
      if (pvs.length !== disks || off.length > 0) {
        return `local volumes: ${pvs.length} of ${disks} disks offered${off.length ? `; not Available or Bound: ${some(off.map((pv) => `${pv.metadata.name} ${pv.status?.phase ?? '-'}${pv.status?.message ? ` (${pv.status.message})` : ''}`))}` : ''}`;
      }
      return undefined;
    })().catch((e: unknown) => `could not look: ${(e as Error).message}`);
    if (why === undefined) return { at: Date.now(), waiting: '' };
    waiting = why;
    await sleep(500);
  }
  return { waiting };
}

export async function changeLog(t: Topology, kinds: string[]): Promise<CommittedChange[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ rv: string; kind: string; namespace: string; name: string }>(
      `SELECT rv::text, kind, namespace, name FROM change_log WHERE kind = ANY($1) AND type <> 'GAP' AND (kind <> 'ConfigMap' OR namespace = $2) ORDER BY rv`,
      [kinds, NS],
    );
    return r.rows.map((row) => ({ rv: BigInt(row.rv), kind: row.kind, key: `${row.namespace}/${row.name}` }));
  } finally {
    await c.end();
  }
}

/** The history's rows at the acknowledged writes' resourceVersions. */
export async function recorded(t: Topology, acked: readonly AckedWrite[]): Promise<RecordedChange[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ rv: string; kind: string; namespace: string; name: string; uid: string }>(
      `SELECT rv::text, kind, namespace, name, uid FROM history WHERE rv = ANY($1::bigint[])`,
      [acked.map((a) => a.rv.toString())],
    );
    return r.rows.map((row) => ({ rv: BigInt(row.rv), kind: row.kind, key: `${row.namespace ?? ''}/${row.name}`, uid: row.uid }));
  } finally {
    await c.end();
  }
}

const SIGNATURE = 'STOWAGE-CHAOS claim=';

/** Marks a disk with the claim that used it (the "application data" a wipe must remove). */
export function writeSignature(device: string, uid: string): void {
  const fd = openSync(device, 'r+');
  try {
    writeSync(fd, Buffer.from(`${SIGNATURE}${uid}\n`), 0, undefined, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function readSignature(device: string): string | undefined {
  const fd = openSync(device, 'r');
  try {
    const buf = Buffer.alloc(128);
    readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8');
    return text.startsWith(SIGNATURE) ? text.slice(SIGNATURE.length).split('\n')[0] : undefined;
  } finally {
    closeSync(fd);
  }
}
