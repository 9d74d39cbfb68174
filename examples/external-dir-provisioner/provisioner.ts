// An external provisioner that follows seed 000's protocol ("Out of tree provisioning" and
// "Controller workflow for deleting volumes") through the Kubernetes API, with
// @kubernetes/client-node informers. It works the same against Stowage and against a real
// cluster. It provisions a directory per claim under --root and acts as its own deleter.
import fs from 'node:fs/promises';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';

export interface DirProvisionerOptions {
  kubeconfig: string;
  /** The provisioner name, `<vendor>/<name>` (seed 000: it MUST be distinct). */
  name: string;
  /** Directories are made under this one. */
  root: string;
  /** The node the directories live on (PVs get node affinity to it). */
  node: string;
  /** How often everything is looked at again (the seed's "retry periodically"). */
  resyncMs?: number;
  log?: (msg: string) => void;
}

const annProvisioner = 'volume.kubernetes.io/storage-provisioner';
const annBetaProvisioner = 'volume.beta.kubernetes.io/storage-provisioner';
const annProvisionedBy = 'pv.kubernetes.io/provisioned-by';
const annBetaClass = 'volume.beta.kubernetes.io/storage-class';
/** What the deleter needs later: the directory (never secrets; seed 000 #34822). */
const annDir = 'example.com/directory';
const knownParameters = ['mode'];

type Claim = k8s.V1PersistentVolumeClaim;
type Volume = k8s.V1PersistentVolume;

export class DirProvisioner {
  private readonly kc = new k8s.KubeConfig();
  private readonly core: k8s.CoreV1Api;
  private readonly storage: k8s.StorageV1Api;
  private readonly claims: k8s.Informer<Claim> & k8s.ObjectCache<Claim>;
  private readonly volumes: k8s.Informer<Volume> & k8s.ObjectCache<Volume>;
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly pending = new Set<string>();
  private draining: Promise<void> | undefined;
  private stopped = false;
  private readonly log: (msg: string) => void;

  constructor(private readonly o: DirProvisionerOptions) {
    this.kc.loadFromFile(o.kubeconfig);
    this.core = this.kc.makeApiClient(k8s.CoreV1Api);
    this.storage = this.kc.makeApiClient(k8s.StorageV1Api);
    this.log = o.log ?? ((m) => console.log(`[${o.name}] ${m}`));
    this.claims = k8s.makeInformer(this.kc, '/api/v1/persistentvolumeclaims', () => this.core.listPersistentVolumeClaimForAllNamespaces());
    this.volumes = k8s.makeInformer(this.kc, '/api/v1/persistentvolumes', () => this.core.listPersistentVolume());
  }

  async start(): Promise<void> {
    const claimKey = (c: Claim) => `pvc/${c.metadata?.namespace}/${c.metadata?.name}`;
    const volumeKey = (v: Volume) => `pv/${v.metadata?.name}`;
    for (const [informer, key] of [
      [this.claims, claimKey],
      [this.volumes, volumeKey],
    ] as const) {
      const inf = informer as k8s.Informer<k8s.KubernetesObject>;
      inf.on('add', (obj) => this.enqueue((key as (o: k8s.KubernetesObject) => string)(obj)));
      inf.on('update', (obj) => this.enqueue((key as (o: k8s.KubernetesObject) => string)(obj)));
      // client-node's informer stops on a connection error: start it again shortly.
      inf.on('error', () => this.later(() => inf.start().catch(() => {}), 1000));
      await inf.start();
    }
    const resync = setInterval(() => this.resync(), this.o.resyncMs ?? 30_000);
    this.timers.add(resync);
    this.log(`watching claims for ${this.o.name}; directories under ${this.o.root} on node ${this.o.node}`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.all([this.claims.stop(), this.volumes.stop()]);
    await this.draining;
  }

  private resync(): void {
    for (const c of this.claims.list()) this.enqueue(`pvc/${c.metadata?.namespace}/${c.metadata?.name}`);
    for (const v of this.volumes.list()) this.enqueue(`pv/${v.metadata?.name}`);
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    this.timers.add(t);
  }

  /** Keys are handled one at a time, always against the newest cached object. */
  private enqueue(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    for (const key of this.pending) {
      this.pending.delete(key);
      try {
        await this.sync(key);
        this.failures.delete(key);
      } catch (err) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        this.log(`${key}: ${(err as Error).message}; retrying`);
        this.later(() => this.enqueue(key), Math.min(60_000, 500 * 2 ** (n - 1)));
      }
    }
  }

  private sync(key: string): Promise<void> {
    const [kind, a, b] = key.split('/');
    if (kind === 'pvc') {
      const claim = this.claims.get(b, a);
      return claim ? this.provision(claim) : Promise.resolve();
    }
    const volume = this.volumes.get(a);
    return volume ? this.delete(volume) : Promise.resolve();
  }

  // ---- provisioning (seed 000 "Out of tree provisioning", steps 1-5) ----

  private async provision(claim: Claim): Promise<void> {
    const a = claim.metadata?.annotations ?? {};
    if ((a[annProvisioner] ?? a[annBetaProvisioner]) !== this.o.name) return; // 1. not ours
    if (claim.spec?.volumeName || claim.metadata?.deletionTimestamp) return; // 2. bound already
    const pvName = `pvc-${claim.metadata?.uid}`;
    if (this.volumes.get(pvName)) return; // provisioned already: the binder binds it
    const className = a[annBetaClass] ?? claim.spec?.storageClassName ?? '';
    let sc: k8s.V1StorageClass;
    try {
      sc = await this.storage.readStorageClass({ name: className }); // 3.
    } catch (err) {
      await this.event('PersistentVolumeClaim', claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      throw err;
    }
    const problems = this.check(claim, sc); // 4. parse everything; refuse what we do not understand
    if (problems.length > 0) {
      await this.event('PersistentVolumeClaim', claim, 'Warning', 'ProvisioningFailed', problems.join('; '));
      throw new Error(problems.join('; '));
    }
    const dir = path.join(this.o.root, pvName);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.chmod(dir, parseInt(sc.parameters?.mode ?? '0700', 8));
    const pv = this.volumeFor(claim, sc, pvName, dir);
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) { // 5. save; retry a few times
      try {
        await this.core.createPersistentVolume({ body: pv });
        await this.event('PersistentVolumeClaim', claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName} in ${dir}`);
        this.log(`provisioned ${pvName} for ${claim.metadata?.namespace}/${claim.metadata?.name}`);
        return;
      } catch (err) {
        if ((err as { code?: number }).code === 409) return; // a repeated create fails instead of duplicating
        lastError = err;
      }
    }
    await fs.rm(dir, { recursive: true, force: true }); // all attempts failed: MUST delete the asset
    await this.event('PersistentVolumeClaim', claim, 'Warning', 'ProvisioningFailed', `could not save the PV, deleted ${dir}: ${String(lastError)}`);
    throw lastError;
  }

  private check(claim: Claim, sc: k8s.V1StorageClass): string[] {
    const problems = Object.keys(sc.parameters ?? {})
      .filter((k) => !knownParameters.includes(k))
      .map((k) => `unknown parameter "${k}"`);
    if (sc.parameters?.mode !== undefined && !/^0?[0-7]{3}$/.test(sc.parameters.mode)) problems.push('parameter "mode" must be octal');
    if (claim.spec?.selector) problems.push("can't parse PVC selector!");
    if (claim.spec?.volumeMode === 'Block') problems.push('directories cannot be Block volumes');
    if ((claim.spec?.accessModes ?? []).some((m) => m !== 'ReadWriteOnce' && m !== 'ReadWriteOncePod')) {
      problems.push('a directory on one node supports ReadWriteOnce only');
    }
    return problems;
  }

  private volumeFor(claim: Claim, sc: k8s.V1StorageClass, name: string, dir: string): Volume {
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [annProvisionedBy]: this.o.name, [annDir]: dir } },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
        accessModes: claim.spec?.accessModes,
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace: claim.metadata?.namespace,
          name: claim.metadata?.name,
          uid: claim.metadata?.uid,
          resourceVersion: claim.metadata?.resourceVersion,
        },
        persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata?.name,
        volumeMode: 'Filesystem',
        hostPath: { path: dir, type: 'Directory' },
        nodeAffinity: {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [this.o.node] }] }] },
        },
      },
    };
  }

  // ---- deleting (seed 000 "Controller workflow for deleting volumes", step 6) ----

  private async delete(pv: Volume): Promise<void> {
    if (pv.status?.phase !== 'Released') return;
    if (pv.metadata?.annotations?.[annProvisionedBy] !== this.o.name) return;
    if (pv.spec?.persistentVolumeReclaimPolicy !== 'Delete') return; // MUST ignore other policies
    if (pv.metadata?.deletionTimestamp) return; // deleted already, waiting for finalizers
    const dir = pv.metadata?.annotations?.[annDir] ?? '';
    const rel = path.relative(this.o.root, dir);
    try {
      if (!dir || rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`refusing to delete ${dir}: not under ${this.o.root}`);
      await fs.rm(dir, { recursive: true, force: true }); // the asset first ...
    } catch (err) {
      await this.event('PersistentVolume', pv, 'Warning', 'VolumeFailedDelete', String((err as Error).message));
      throw err;
    }
    await this.core.deletePersistentVolume({ name: pv.metadata!.name! }); // ... then the PV
    this.log(`deleted ${pv.metadata?.name} and ${dir}`);
  }

  /** Events on the claim (or PV) tell users what happened, as in-tree provisioners do. */
  // Objects from a list carry no kind (as with any Kubernetes API server): the caller says it.
  private async event(kind: 'PersistentVolumeClaim' | 'PersistentVolume', obj: Claim | Volume, type: string, reason: string, message: string): Promise<void> {
    const m = obj.metadata!;
    const namespace = m.namespace || 'default';
    const now = new Date();
    const body: k8s.CoreV1Event = {
      metadata: { name: `${m.name}.${now.getTime().toString(16)}${Math.random().toString(16).slice(2, 6)}`, namespace },
      involvedObject: { kind, apiVersion: 'v1', name: m.name, namespace: m.namespace, uid: m.uid },
      reason,
      message,
      type,
      source: { component: this.o.name },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    await this.core.createNamespacedEvent({ namespace, body }).catch((err) => this.log(`could not record an event: ${String(err)}`));
  }
}
