// The claim page's doctor: the claim's capacity (requested, provisioned, used as its plugin
// or node agent measured it) and the fixes for a Pending claim (domain/claim-fixes.ts),
// previewed, then applied through the object service (authorization, validation) with the
// resourceVersion the preview showed: a claim that changed since is left alone (409).
import { accessModeGroups, claimClass, requestedStorage } from '../domain/matching';
import { isAllowed, type Principal } from '../domain/authorization';
import { claimFixes, claimNotFixable, fixFor, volumePrefill, type ClassFacts, type Fix, type FixFacts, type FixKind, type VolumePrefill } from '../domain/claim-fixes';
import { isStowageError, StowageError } from '../domain/errors';
import { quantityToBytes } from '../domain/quantity';
import { capacityView, type CapacityView } from '../domain/volume-usage';
import { podsUsingClaim } from '../domain/pod-claims';
import { capabilitiesOf, inTreeProvisionerNames } from '../domain/provisioner-capabilities';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { podsNamingClaim } from '../store/reclaim-queries';
import { availableVolumes } from '../store/volume-queries';
import type { ObjectService } from './objects';
import { ofKind } from '../resources/of-kind';
import { pvcProtectionFinalizer } from '../domain/well-known/finalizers';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import { pooledPromises, withCurrentPromises } from '../domain/pool-capacity';
import { poolSituation, type PoolSituation } from '../domain/pool-situation';
import { readReplication, replicationParameters, type ReplicationView } from '../domain/replication';
import { AssetStore } from '../store/provisioned-assets';
import { CAPACITY_NAMESPACE } from './node-pools';
import { annLastAppliedConfiguration } from '../domain/well-known/annotations';
import { reasons } from '../domain/well-known/event-reasons';
import type { Event } from '../resources/event/schema';

const PVC = 'PersistentVolumeClaim';
/** Annotations the controllers own: a re-created claim starts without them. */
const CONTROLLER_ANNOTATION_PREFIXES = ['pv.kubernetes.io/', 'volume.kubernetes.io/', 'volume.beta.kubernetes.io/', 'stowage.io/'];
/** kubectl apply's record of the OLD claim (its old class): a re-created claim must not carry it. */
const DROPPED_ANNOTATIONS = new Set([annLastAppliedConfiguration]);
const PROVISIONING_REASONS = new Set<string>([reasons.provisioningFailed, reasons.provisioningSucceeded, reasons.externalProvisioning, reasons.provisioning]);

/** The newest provisioning event's message when it is a failure (events come oldest first). */
export function currentProvisioningFailure(events: Event[]): string | undefined {
  const latest = events.filter((e) => PROVISIONING_REASONS.has(e.reason ?? '')).at(-1);
  return latest?.reason === reasons.provisioningFailed ? (latest.message ?? '') : undefined;
}

export interface ClaimDoctor {
  resourceVersion: string;
  capacity: CapacityView;
  fixes: Fix[];
  /** For "Create a matching volume": the form's fields (administrators only). */
  prefill?: VolumePrefill;
  /** A Pending claim of a btrfs pool class: where its pool has room, or why nowhere. */
  pools?: PoolSituation;
  /** A Bound claim of a replicated volume: what the volume says of its copies (developers may not read the volume itself). */
  replication?: ReplicationView;
}

export interface FixRequest {
  namespace: string;
  name: string;
  kind: FixKind;
  target?: string;
  resourceVersion: string;
}

export interface FixResult {
  fix: Fix;
  claim: PersistentVolumeClaim;
}

/** The claim as it would be created again with another class. */
export function recreatedClaim(claim: PersistentVolumeClaim, className: string): PersistentVolumeClaim {
  const annotations = Object.fromEntries(
    Object.entries(claim.metadata.annotations ?? {}).filter(([k]) => !DROPPED_ANNOTATIONS.has(k) && !CONTROLLER_ANNOTATION_PREFIXES.some((p) => k.startsWith(p))),
  );
  const { volumeName: _v, storageClassName: _c, ...spec } = claim.spec ?? {};
  return {
    apiVersion: 'v1',
    kind: PVC,
    metadata: {
      name: claim.metadata.name,
      namespace: claim.metadata.namespace,
      ...(claim.metadata.labels ? { labels: { ...claim.metadata.labels } } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: { ...spec, storageClassName: className },
  };
}

export class ClaimDoctorService {
  constructor(private readonly objects: ObjectService) {}

  private get store() {
    return this.objects.store;
  }

  private async facts(p: Principal, claim: PersistentVolumeClaim): Promise<FixFacts> {
    const ns = claim.metadata.namespace ?? '';
    const name = claim.metadata.name ?? '';
    const classes: ClassFacts[] = isAllowed(p, 'list', 'StorageClass')
      ? ofKind((await this.store.list('StorageClass')).items, 'StorageClass').map((sc) => ({
          sc,
          capabilities: capabilitiesOf(sc.provisioner ?? ''),
          inTree: inTreeProvisionerNames.has(sc.provisioner ?? ''),
        }))
      : [];
    const volumes: PersistentVolume[] = [];
    if (p.role === 'admin') {
      for (const set of accessModeGroups(claim.spec?.accessModes ?? [])) {
        const rows = await availableVolumes(this.store, {
          storageClass: claimClass(claim),
          volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
          accessModes: set,
          minBytes: quantityToBytes(requestedStorage(claim)).toString(),
          limit: 5,
        });
        volumes.push(...rows.map((r) => r.volume));
        if (volumes.length >= 5) break;
      }
    }
    const pods = await podsNamingClaim(this.store, ns, name);
    const failure = currentProvisioningFailure(await this.objects.eventsFor(p, claim));
    return {
      claim,
      role: p.role,
      mayWriteClaim: isAllowed(p, 'update', PVC, ns) && isAllowed(p, 'delete', PVC, ns) && isAllowed(p, 'create', PVC, ns),
      classes,
      volumes,
      podsUsing: podsUsingClaim(pods, ns, name),
      ...(failure !== undefined ? { provisioningFailure: failure } : {}),
    };
  }

  /** Capacity and fixes of one claim the caller may read. */
  async overview(p: Principal, namespace: string, name: string): Promise<ClaimDoctor> {
    const claim = await this.objects.get(p, PVC, namespace, name);
    // Developers may not read volumes: they get the numbers of their claim's volume, not the volume.
    const pvName: string = claim.spec?.volumeName ?? '';
    const pv = pvName ? await this.store.tryGet('PersistentVolume', undefined, pvName) : undefined;
    const boundToIt = pv?.spec?.claimRef?.uid === undefined || pv.spec.claimRef.uid === claim.metadata.uid;
    // A Bound (or terminating) claim has no fixes: nothing else is looked up for it.
    const fixes = claimNotFixable(claim) ? [] : claimFixes(await this.facts(p, claim));
    const pools = claimNotFixable(claim) ? undefined : await this.pools(p, claim);
    const replication = pv && boundToIt ? readReplication(pv.metadata.annotations) : undefined;
    return {
      resourceVersion: claim.metadata.resourceVersion ?? '',
      capacity: capacityView(claim, boundToIt ? pv : undefined),
      fixes,
      ...(p.role === 'admin' && fixes.length > 0 ? { prefill: volumePrefill(claim) } : {}),
      ...(pools ? { pools } : {}),
      ...(replication ? { replication } : {}),
    };
  }

  /**
   * For a Pending claim of a btrfs pool class: each node's room in the pool (volumes being
   * made counted) or why its pool cannot serve. Node names and figures only for those who
   * may read the capacity objects (admins, viewers); developers get the counts.
   */
  private async pools(p: Principal, claim: PersistentVolumeClaim): Promise<PoolSituation | undefined> {
    const className = claimClass(claim);
    const sc = className ? await this.store.tryGet('StorageClass', undefined, className) : undefined;
    const pool = sc?.parameters?.pool;
    if (!sc || sc.provisioner !== btrfsProvisioner || typeof pool !== 'string') return undefined;
    const published = ofKind((await this.store.list('CSIStorageCapacity')).items, 'CSIStorageCapacity');
    const promises = pooledPromises(await new AssetStore(this.store).promisedByPool(btrfsProvisioner));
    const withNodes = isAllowed(p, 'list', 'CSIStorageCapacity', CAPACITY_NAMESPACE);
    return poolSituation(className, pool, quantityToBytes(requestedStorage(claim)), withCurrentPromises(published, promises), withNodes, replicationParameters(sc.parameters ?? {}).value.replicas);
  }

  /** What one fix would do now, or why not. */
  async preview(p: Principal, r: Omit<FixRequest, 'resourceVersion'>): Promise<Fix & { resourceVersion: string; claim?: PersistentVolumeClaim }> {
    const claim = await this.objects.get(p, PVC, r.namespace, r.name);
    const fix = fixFor(await this.facts(p, claim), r.kind, r.target);
    const after = fix.allowed && r.kind === 'recreate-with-class' && r.target ? recreatedClaim(claim, r.target) : undefined;
    const rv = claim.metadata.resourceVersion ?? '';
    if (after) {
      // The new claim is checked now (validation, quota), so the preview says what Apply would meet.
      const refused = await this.checkRecreate(p, claim, after).then(
        () => undefined,
        (err: unknown) => (isStowageError(err) ? err : Promise.reject(err)),
      );
      if (refused) return { ...fix, allowed: false, reason: refused.message, changes: [], resourceVersion: rv };
    }
    return { ...fix, resourceVersion: rv, ...(after ? { claim: after } : {}) };
  }

  /** Applies one fix previewed at `resourceVersion`. */
  async apply(p: Principal, r: FixRequest): Promise<FixResult> {
    if (r.kind === 'create-volume') throw new StowageError('BadRequest', 'a matching volume is created with the volume form, not here');
    const claim = await this.objects.get(p, PVC, r.namespace, r.name);
    if (claim.metadata.resourceVersion !== r.resourceVersion) {
      throw new StowageError('Conflict', `Operation cannot be fulfilled on persistentvolumeclaims "${r.name}": the claim changed since the preview (resourceVersion ${r.resourceVersion} → ${claim.metadata.resourceVersion}); look again`);
    }
    const fix = fixFor(await this.facts(p, claim), r.kind, r.target);
    if (!fix.allowed) throw new StowageError(fix.denied ? 'Forbidden' : 'Invalid', `cannot ${r.kind.replace(/-/g, ' ')}${r.target ? ` ${r.target}` : ''}: ${fix.reason}`);
    const target = r.target ?? '';
    if (r.kind === 'switch-class' || r.kind === 'pre-bind') {
      const next = structuredClone(claim);
      if (r.kind === 'switch-class') next.spec = { ...next.spec, storageClassName: target };
      else next.spec = { ...next.spec, volumeName: target };
      // The update carries the previewed resourceVersion: a concurrent change fails with 409.
      return { fix, claim: await this.objects.update(p, next) };
    }
    return { fix, claim: await this.recreate(p, claim, target) };
  }

  /**
   * The create of `next` in place of `claim`, as a dry run: under a scratch name (the
   * original still holds the real one) and with quota not counting the original, which the
   * re-create deletes first. A refusal names the claim, never the scratch name.
   */
  private async checkRecreate(p: Principal, claim: PersistentVolumeClaim, next: PersistentVolumeClaim): Promise<void> {
    const name = claim.metadata.name ?? '';
    const scratchName = `${name.slice(0, 200)}-check-${Date.now().toString(36)}`;
    const scratch = { ...next, metadata: { ...next.metadata, name: scratchName } };
    try {
      await this.objects.create(p, scratch, { dryRun: true, replacesClaim: claim.metadata.uid });
    } catch (err) {
      if (!isStowageError(err)) throw err;
      const details = err.details.name === scratchName ? { ...err.details, name } : err.details;
      throw new StowageError(err.code, err.message.split(scratchName).join(name), details);
    }
  }

  /**
   * Deletes the Pending claim and creates it again with the class. The new claim is checked
   * first (a dry run under a scratch name). The delete carries the previewed version, so a
   * claim changed meanwhile is left alone; only then is the protection finalizer lifted,
   * on a claim already being deleted (pvc-protection adds it back to a live claim at once,
   * so lifting it first raced the controller), and only because no pod uses the claim
   * (checked just before). If the create still fails the original claim is put back, so
   * the namespace is never left without it.
   */
  private async recreate(p: Principal, claim: PersistentVolumeClaim, className: string): Promise<PersistentVolumeClaim> {
    const ns = claim.metadata.namespace ?? '';
    const name = claim.metadata.name ?? '';
    const next = recreatedClaim(claim, className);
    const others = (claim.metadata.finalizers ?? []).filter((f: string) => f !== pvcProtectionFinalizer);
    if (others.length > 0) throw new StowageError('Conflict', `claim ${ns}/${name} has finalizers ${others.join(', ')}, which only their owners may lift; it cannot be re-created now`);
    await this.checkRecreate(p, claim, next);
    const res = await this.objects.delete(p, PVC, ns, name, { preconditions: { uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion } });
    if (!res.deleted) await this.liftProtection(p, claim);
    try {
      return await this.objects.create(p, next);
    } catch (err) {
      const original = recreatedClaim(claim, claimClass(claim));
      await this.objects.create(p, original).catch(() => undefined);
      throw err;
    }
  }

  /** Lifts pvc-protection from the claim being deleted (same uid) until it is gone; pvc-protection may lift it first. */
  private async liftProtection(p: Principal, claim: PersistentVolumeClaim): Promise<void> {
    const ns = claim.metadata.namespace ?? '';
    const name = claim.metadata.name ?? '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.objects.get(p, PVC, ns, name).catch((err: unknown) => (isStowageError(err) && err.code === 'NotFound' ? undefined : Promise.reject(err)));
      if (!current || current.metadata.uid !== claim.metadata.uid) return;
      const lifted = structuredClone(current);
      lifted.metadata.finalizers = (current.metadata.finalizers ?? []).filter((f: string) => f !== pvcProtectionFinalizer);
      try {
        await this.objects.update(p, lifted);
        return;
      } catch (err) {
        if (!isStowageError(err) || (err.code !== 'Conflict' && err.code !== 'NotFound')) throw err;
      }
    }
    throw new StowageError('Conflict', `claim ${ns}/${name} is being deleted but is still there; create it again once it is gone`);
  }
}
