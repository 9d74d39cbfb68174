// Claims and their consumers on real Postgres with every controller running: in-use
// protection (a claim's deletion waits for its pods), placement of pods on the nodes their
// volumes reach, WaitForFirstConsumer binding to a local volume of the chosen node, and
// provisioning on the selected node (host-path on a real directory).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectClaim } from '../../server/controllers/pvc-protection/pvc-protection';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import type { UserPrincipal } from '../../server/domain/authorization';
import { releaseAndWarn } from '../../server/provisioners/testing';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { Pod } from '../../server/resources/pod/schema';
import type { StorageClass } from '../../server/resources/storage-class/schema';
import type { KubeObject } from '../../server/resources/types';
import { testContext } from '../provisioning/harness';
import { ensureNamespaces, eventsAbout, openApp, waitFor } from './fixtures';

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers;
let dir: string;
const NS = 'team-a';
const PROVISIONING_NODE = 'node-b';
const admin: UserPrincipal = { type: 'user', id: 'test-admin', name: 'admin', role: 'admin', namespaces: [] };

beforeAll(async () => {
  ctx = await openApp();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-consumers-'));
  await ensureNamespaces(ctx.app, 'default', NS);
  // Three Ready nodes, one zone each; the in-tree provisioners run on node-b.
  for (const [name, zone] of [['node-a', 'a'], ['node-b', 'b'], ['node-c', 'c']]) {
    await create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }] },
    });
  }
  running = await startControllers({
    app: ctx.app,
    connectionString: ctx.url,
    leaderElection: false,
    pendingGraceMs: 0,
    provisioning: { nodeName: PROVISIONING_NODE },
  });
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
  if (dir) await releaseAndWarn(dir);
});

/** Creates through the service as an admin would (admission adds the protection finalizers). */
const create = (o: KubeObject) => ctx.app.objects.create(admin, o);
const get = <K extends string>(kind: K, name: string, ns?: string) => ctx.app.store.tryGet(kind, kind === 'PersistentVolume' || kind === 'Node' ? undefined : (ns ?? NS), name);

const pinned = (node: string) => ({
  required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] },
});

function localVolume(name: string, className: string, node: string, size = '1Gi'): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: className,
      local: { path: `/mnt/disks/${name}` },
      nodeAffinity: pinned(node),
    },
  };
}

function claim(name: string, className: string, extra: Record<string, unknown> = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Mi' } }, storageClassName: className, ...extra },
  };
}

function pod(name: string, claims: string[], spec: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: name } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example/app:1.0',
          ports: [{ containerPort: 8080 }],
          volumeMounts: claims.map((c) => ({ name: c, mountPath: `/data/${c}` })),
        },
      ],
      volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })),
      ...spec,
    },
  };
}

const wffcClass = (name: string, provisioner: string, parameters?: Record<string, string>): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  volumeBindingMode: 'WaitForFirstConsumer',
  ...(parameters ? { parameters } : {}),
});

async function placed(name: string): Promise<Pod> {
  return waitFor(
    `pod ${name} placed`,
    async () => {
      const p = await get('Pod', name);
      return p?.spec?.nodeName ? p : undefined;
    },
    30_000,
  );
}

describe('in-use protection', () => {
  it('every claim and volume carries its protection finalizer from creation', async () => {
    const c = await create(claim('fin-claim', ''));
    const v = await create(localVolume('fin-pv', 'none', 'node-a'));
    expect(c.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect(v.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
  });

  it("a claim's deletion waits for the pods using it; a finished pod no longer counts", async () => {
    await create(claim('used', ''));
    await create(claim('unused', ''));
    await create(claim('by-finished', ''));
    // On a node already (in-use protection counts scheduled pods only).
    await create(pod('user-1', ['used'], { nodeName: 'node-a' }));
    await create(pod('user-2', ['used'], { nodeName: 'node-a' }));
    const finished = await create(pod('finisher', ['by-finished'], { nodeName: 'node-a' }));

    await ctx.app.objects.delete(admin, 'PersistentVolumeClaim', NS, 'used');
    await ctx.app.objects.delete(admin, 'PersistentVolumeClaim', NS, 'unused');
    await waitFor('the unused claim to go', async () => !(await get('PersistentVolumeClaim', 'unused')));
    // The used one stays: one more reconcile of it, here and now, keeps the finalizer.
    await protectClaim({ store: ctx.app.store }, testContext(), NS, 'used');
    const held = await get('PersistentVolumeClaim', 'used');
    expect(held?.metadata.deletionTimestamp).toBeTruthy();
    expect(held?.metadata.finalizers).toContain('kubernetes.io/pvc-protection');

    await ctx.app.objects.delete(admin, 'Pod', NS, 'user-1');
    expect(await get('PersistentVolumeClaim', 'used')).toBeTruthy();
    await ctx.app.objects.delete(admin, 'Pod', NS, 'user-2');
    await waitFor('the used claim to go once its pods are gone', async () => !(await get('PersistentVolumeClaim', 'used')));

    // A pod in phase Succeeded does not hold its claim (upstream semantics).
    await ctx.app.objects.delete(admin, 'PersistentVolumeClaim', NS, 'by-finished');
    const cur = (await get('Pod', 'finisher'))!;
    await ctx.app.store.update({ ...cur, status: { ...(cur).status, phase: 'Succeeded' } }, { subresource: 'status' });
    await waitFor('the claim of a finished pod to go', async () => !(await get('PersistentVolumeClaim', 'by-finished')));
    expect(finished.metadata.name).toBe('finisher');
  });
});

describe('in-use protection counts only scheduled pods (upstream podUsesPVC)', () => {
  it('a pod that names the claim but is on no node does not hold its deletion', async () => {
    await create(claim('named-by-pending', ''));
    // Placed nowhere: no node has this host name.
    await create(pod('never-placed', ['named-by-pending'], { nodeSelector: { 'kubernetes.io/hostname': 'no-such-node' } }));
    await ctx.app.objects.delete(admin, 'PersistentVolumeClaim', NS, 'named-by-pending');
    await waitFor('the claim to go although an unscheduled pod names it', async () => !(await get('PersistentVolumeClaim', 'named-by-pending')));
    expect((await get('Pod', 'never-placed'))?.spec?.nodeName).toBeUndefined();
  });
});

describe('placement and WaitForFirstConsumer', () => {
  it('a WFFC claim waits for its consumer, then binds to the local volume of the node the pod is placed on', async () => {
    await create(wffcClass('local-wffc', 'kubernetes.io/no-provisioner'));
    await create(localVolume('local-on-c', 'local-wffc', 'node-c'));
    await create(claim('local-data', 'local-wffc'));
    const waiting = await waitFor('the WaitForFirstConsumer event', async () => {
      const c = await get('PersistentVolumeClaim', 'local-data');
      const evs = c ? await eventsAbout(ctx.app, c) : [];
      return evs.find((e) => e.reason === 'WaitForFirstConsumer');
    });
    expect(waiting.message).toBe('waiting for first consumer to be created before binding');
    expect((await get('PersistentVolumeClaim', 'local-data'))?.status?.phase).toBe('Pending');

    await create(pod('local-app', ['local-data']));
    const p = await placed('local-app');
    expect(p.spec!.nodeName).toBe('node-c');
    expect(p.status!.conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'True' }));
    const c = (await get('PersistentVolumeClaim', 'local-data'))!;
    expect(c.status!.phase).toBe('Bound');
    expect(c.spec!.volumeName).toBe('local-on-c');
    expect(c.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe('node-c');
    const scheduled = await waitFor('the Scheduled event', async () => (await eventsAbout(ctx.app, p)).find((e) => e.reason === 'Scheduled'));
    expect(scheduled.message).toBe('Successfully assigned team-a/local-app to node-c');
  });

  it('a WFFC claim of the host-path class is provisioned on the selected node, a real directory there', async () => {
    const basePath = path.join(dir, 'host-path');
    await create(wffcClass('hostpath-wffc', 'stowage.io/host-path', { basePath }));
    await create(claim('made-here', 'hostpath-wffc'));
    // nodeSelector allows node-b or node-c; only node-b runs the host-path plugin.
    await create(
      pod('maker', ['made-here'], {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['b', 'c'] }] }],
            },
          },
        },
      }),
    );
    const p = await placed('maker');
    expect(p.spec!.nodeName).toBe(PROVISIONING_NODE);
    const c = (await get('PersistentVolumeClaim', 'made-here'))!;
    expect(c.status!.phase).toBe('Bound');
    const v = (await get('PersistentVolume', c.spec!.volumeName!))!;
    expect(v.spec!.nodeAffinity).toEqual(pinned(PROVISIONING_NODE));
    const st = await fs.stat((v.spec!.hostPath?.path ?? v.spec!.local?.path)!);
    expect(st.isDirectory()).toBe(true);
  });

  it('once its node is selected, a WFFC claim of a class with a provisioner is provisioned there; an Available volume is not taken (upstream)', async () => {
    const basePath = path.join(dir, 'host-path-selected');
    await create(wffcClass('hostpath-selected', 'stowage.io/host-path', { basePath }));
    // A volume of the class that would fit, on the selected node, reserved for nobody.
    await create(localVolume('spare-on-b', 'hostpath-selected', PROVISIONING_NODE, '5Gi'));
    await create(claim('selected-by-hand', 'hostpath-selected', {}));
    // As a client would (client-go's RetryOnConflict): the controllers may write the claim
    // (its protection finalizer, say) between the read and the update.
    for (let attempt = 0; ; attempt++) {
      const c0 = (await get('PersistentVolumeClaim', 'selected-by-hand'))!;
      try {
        await ctx.app.store.update({ ...c0, metadata: { ...c0.metadata, annotations: { ...c0.metadata.annotations, 'volume.kubernetes.io/selected-node': PROVISIONING_NODE } } });
        break;
      } catch (e) {
        if ((e as { code?: string }).code !== 'Conflict' || attempt >= 5) throw e;
      }
    }
    const bound = await waitFor('the claim to be bound', async () => {
      const c = await get('PersistentVolumeClaim', 'selected-by-hand');
      return c?.status?.phase === 'Bound' ? c : undefined;
    });
    expect(bound.spec!.volumeName).toBe(`pvc-${bound.metadata.uid}`);
    const spare = (await get('PersistentVolume', 'spare-on-b'))!;
    expect(spare.spec!.claimRef).toBeUndefined();
    expect(spare.status!.phase).toBe('Available');
  });

  it('placement pre-binds the existing volume it chose (claimRef, bound-by-controller) before it selects the node', async () => {
    await create(wffcClass('local-prebind', 'kubernetes.io/no-provisioner'));
    await create(localVolume('prebind-on-a', 'local-prebind', 'node-a'));
    await create(claim('prebind-data', 'local-prebind'));
    await create(pod('prebind-app', ['prebind-data']));
    const p = await placed('prebind-app');
    expect(p.spec!.nodeName).toBe('node-a');
    const v = (await get('PersistentVolume', 'prebind-on-a'))!;
    const c = (await get('PersistentVolumeClaim', 'prebind-data'))!;
    expect(v.spec!.claimRef).toMatchObject({ kind: 'PersistentVolumeClaim', namespace: NS, name: 'prebind-data', uid: c.metadata.uid });
    expect(v.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBe('yes');
    expect(c.spec!.volumeName).toBe('prebind-on-a');
  });

  it('a pod whose volumes no node can serve stays Pending with the reasons per node', async () => {
    await create(wffcClass('local-only-c', 'kubernetes.io/no-provisioner'));
    await create({
      ...localVolume('zonal-ab', '', 'node-a'),
      spec: {
        ...localVolume('zonal-ab', '', 'node-a').spec,
        storageClassName: '',
        // Reserved for "logs" on both sides, so no claim left Pending by another test can take it.
        claimRef: { namespace: NS, name: 'logs' },
        nodeAffinity: {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a', 'b'] }] }] },
        },
      },
    });
    await create(claim('logs', '', { volumeName: 'zonal-ab' }));
    await waitFor('logs bound', async () => (await get('PersistentVolumeClaim', 'logs'))?.status?.phase === 'Bound', 30_000);
    await create(localVolume('only-on-c', 'local-only-c', 'node-c'));
    await create(claim('stuck-data', 'local-only-c'));
    await create(pod('stuck', ['logs', 'stuck-data']));
    const message =
      "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) didn't find available persistent volumes to bind.";
    const p = await waitFor('the Unschedulable condition', async () => {
      const cur = await get('Pod', 'stuck');
      return cur?.status?.conditions?.find((x: any) => x.type === 'PodScheduled' && x.status === 'False') ? cur : undefined;
    }, 30_000);
    expect(p.spec!.nodeName).toBeUndefined();
    expect(p.status!.phase).toBe('Pending');
    expect(p.status!.conditions).toContainEqual(expect.objectContaining({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }));
    const failed = await waitFor('the FailedScheduling event', async () =>
      (await eventsAbout(ctx.app, p)).find((e) => e.reason === 'FailedScheduling'),
    );
    expect(failed).toMatchObject({ type: 'Warning', reason: 'FailedScheduling', message });
    expect((await get('PersistentVolumeClaim', 'stuck-data'))?.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();

    // At the claim's next sync the binder names the pod it waits for (upstream's
    // WaitForPodScheduled), not a first consumer that exists already.
    const sd = (await get('PersistentVolumeClaim', 'stuck-data'))!;
    await ctx.app.store.update({ ...sd, metadata: { ...sd.metadata, labels: { ...sd.metadata.labels, touched: 'yes' } } });
    const waiting = await waitFor('the WaitForPodScheduled event', async () =>
      (await eventsAbout(ctx.app, sd)).find((e) => e.reason === 'WaitForPodScheduled'),
    );
    expect(waiting).toMatchObject({ type: 'Normal', message: 'waiting for pod stuck to be scheduled' });
  });
});
