// "What happens if I create this claim?" for the claim form, and the classes it offers.
// The check runs every check a real create runs (a dry run), then the binder's own
// search: pre-bound volumes, then per access-mode group the smallest Available volume
// that passes every rule (the candidate query of store/volume-queries and
// domain/matching), then what the class would do. Developers get counts and reasons,
// redacted as the binder's explanations are: no names or labels of volumes they may not
// see, no claims of namespaces they may not see.
import { accessModesToBits } from '../domain/access-modes';
import { isAllowed, type Principal } from '../domain/authorization';
import { planClaim, redactPlan, type ClaimPlan, type PoolRoom } from '../domain/claim-plan';
import { largestVolume } from '../domain/pool-capacity';
import { capacityTrackedProvisioners, noProvisioner } from '../domain/well-known/provisioners';
import { labelHostname, labelPoolNode } from '../domain/well-known/labels';
import { isStowageError, StowageError, type FieldError } from '../domain/errors';
import { labelSelectorToSelector } from '../domain/label-selector';
import { accessModeGroups, bySize, claimClass, claimHasClass, evaluateVolume, pickInGroup, requestedStorage, type MatchOptions } from '../domain/matching';
import { quantityToBytes } from '../domain/quantity';
import { capabilitiesOf, inTreeProvisionerNames } from '../domain/provisioner-capabilities';
import { isDefaultClass } from '../resources/storage-class/strategy';
import { pinnedHostname } from '../resources/node-selector';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import type { KubeObject } from '../resources/types';
import type { ObjectStore } from '../store/object-store';
import { availableCountsByClass, availableVolumes, nearVolumes, volumesClaimedBy } from '../store/volume-queries';
import { forbidden, readerOf, strategyOrThrow } from './object-access';
import { isKind, ofKind } from '../resources/of-kind';
import { quotaRoom, type QuotaRoom } from './quota-room';
import { annClassDescription, annDescription, annPoolProblem } from '../domain/well-known/annotations';

export type ClaimCheck = ClaimPlan | { outcome: 'invalid'; summary: string; causes: FieldError[] };

export interface ClassChoice {
  name: string;
  provisioner: string;
  description?: string;
  isDefault: boolean;
  reclaimPolicy: string;
  volumeBindingMode: string;
  allowVolumeExpansion: boolean;
  accessModes: readonly string[];
  volumeModes: readonly string[];
  minBytes?: string;
  /**
   * The class makes no volumes (kubernetes.io/no-provisioner): a claim binds only to a volume an administrator made, of which `availableVolumes` exist now.
   */
  staticOnly: boolean;
  availableVolumes?: number;
}

const DESCRIPTION_ANNOTATIONS = [annClassDescription, 'description', annDescription, 'openshift.io/description'];

/** Upstream GetDefaultClass: of several defaults the newest wins; equal times go by name. */
function newestDefault(classes: StorageClass[]): StorageClass | undefined {
  let best: StorageClass | undefined;
  for (const sc of classes.filter(isDefaultClass)) {
    const a = String(sc.metadata.creationTimestamp ?? '');
    const b = String(best?.metadata.creationTimestamp ?? '');
    if (!best || a > b || (a === b && String(sc.metadata.name) < String(best.metadata.name))) best = sc;
  }
  return best;
}

export class ClaimCheckService {
  constructor(
    readonly store: ObjectStore,
    /** The node in-tree plugins provision on. */
    readonly nodeName?: string,
  ) {}

  /** The classes a claim can ask for, with what each provisioner can make. */
  async classes(p: Principal): Promise<ClassChoice[]> {
    const s = strategyOrThrow('StorageClass');
    if (!isAllowed(p, 'list', s.kind)) throw forbidden(p, 'list', s);
    const all = ofKind((await this.store.list('StorageClass')).items, 'StorageClass');
    const def = newestDefault(all);
    const staticOnly = (sc: StorageClass) => sc.provisioner === noProvisioner;
    const counts = await availableCountsByClass(
      this.store,
      all.filter(staticOnly).map((sc) => sc.metadata.name ?? ''),
    );
    return all.map((sc) => {
      const a = sc.metadata.annotations ?? {};
      const caps = capabilitiesOf(sc.provisioner ?? '');
      const fixed = staticOnly(sc);
      return {
        name: sc.metadata.name ?? '',
        provisioner: sc.provisioner ?? '',
        description: DESCRIPTION_ANNOTATIONS.map((k) => a[k]).find((v) => typeof v === 'string' && v.trim() !== ''),
        isDefault: sc === def,
        reclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        volumeBindingMode: sc.volumeBindingMode ?? 'Immediate',
        allowVolumeExpansion: Boolean(sc.allowVolumeExpansion),
        accessModes: caps.accessModes,
        volumeModes: caps.volumeModes,
        minBytes: caps.minBytes,
        staticOnly: fixed,
        ...(fixed ? { availableVolumes: counts.get(sc.metadata.name ?? '') ?? 0 } : {}),
      };
    });
  }

  /** The room the namespace's quotas leave for this claim, and whether it would be refused. */
  async quota(p: Principal, input: KubeObject): Promise<QuotaRoom> {
    if (!input || !isKind(input, 'PersistentVolumeClaim')) throw new StowageError('BadRequest', 'the quota check is for PersistentVolumeClaims');
    return quotaRoom(this.store, p, input);
  }

  async check(p: Principal, input: KubeObject): Promise<ClaimCheck> {
    const s = strategyOrThrow('PersistentVolumeClaim');
    if (!input || !isKind(input, 'PersistentVolumeClaim')) throw new StowageError('BadRequest', 'the check is for PersistentVolumeClaims');
    const ns = input.metadata?.namespace ?? '';
    if (!isAllowed(p, 'create', s.kind, ns)) throw forbidden(p, 'create', s, ns, input.metadata?.name);
    // Everything a real create checks, without writing.
    let claim: PersistentVolumeClaim;
    try {
      claim = await this.store.create(input, { dryRun: true });
    } catch (e) {
      if (!isStowageError(e) || (e.code !== 'Invalid' && e.code !== 'AlreadyExists' && e.code !== 'NotFound' && e.code !== 'BadRequest')) throw e;
      return { outcome: 'invalid', summary: e.message, causes: e.details.causes ?? [] };
    }
    const classes = ofKind((await this.store.list('StorageClass')).items, 'StorageClass');
    const named = claimHasClass(claim);
    const className = named ? claimClass(claim) : (newestDefault(classes)?.metadata.name ?? '');
    if (!named && className) claim = { ...claim, spec: { ...claim.spec, storageClassName: className } };
    const sc = classes.find((c) => c.metadata.name === className);
    const opts: MatchOptions = sc?.volumeBindingMode === 'WaitForFirstConsumer' ? { delayBinding: true } : {};

    const match = await this.findMatch(claim, opts);
    // WaitForFirstConsumer: no volume binds before a pod picks a node, but volumes that fit
    // on some node mean the claim binds once a pod uses it.
    const waiting = !match && opts.delayBinding ? await this.laterMatches(claim) : undefined;
    const bytes = quantityToBytes(requestedStorage(claim)).toString();
    const near = match
      ? []
      : await nearVolumes(this.store, {
          storageClass: className,
          volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
          accessModes: accessModesToBits(claim.spec?.accessModes ?? []),
          minBytes: bytes,
          limit: 4,
        });
    const provisioner: string = sc?.provisioner ?? '';
    const pools = sc && capacityTrackedProvisioners.has(provisioner) ? await this.poolRooms(className) : undefined;
    const plan = planClaim({
      claim,
      className,
      classNamed: named,
      storageClass: sc,
      match,
      laterMatches: waiting,
      near,
      capabilities: sc ? capabilitiesOf(provisioner) : undefined,
      inTree: inTreeProvisionerNames.has(provisioner),
      node: this.nodeName,
      pools,
      opts,
    });
    return redactPlan(plan, readerOf(p));
  }

  /** Each node's pool of a pool class, from the published CSIStorageCapacity objects. */
  private async poolRooms(className: string): Promise<PoolRoom[]> {
    const all = (await this.store.list('CSIStorageCapacity')).items;
    return all
      .filter((c) => c.storageClassName === className)
      .flatMap((c) => {
        const node = c.metadata.labels?.[labelPoolNode] ?? c.nodeTopology?.matchLabels?.[labelHostname];
        if (!node) return [];
        const problem = c.metadata.annotations?.[annPoolProblem];
        return [{ node, roomBytes: largestVolume(c).toString(), ...(problem ? { problem } : {}) }];
      });
  }

  /**
   * The Available volumes that would serve a WaitForFirstConsumer claim once its pod's node
   * is known (every rule but the node's), and the nodes they sit on: at most 50 looked at.
   */
  private async laterMatches(claim: PersistentVolumeClaim): Promise<{ volumes: number; nodes: string[] }> {
    const fits: PersistentVolume[] = [];
    for (const set of accessModeGroups(claim.spec?.accessModes ?? [])) {
      const rows = await this.candidates(claim, set, 50);
      if (!rows) return { volumes: 0, nodes: [] };
      fits.push(...rows.filter((v) => evaluateVolume(claim, v).failures.length === 0));
    }
    const nodes = [...new Set(fits.map((v) => pinnedHostname(v.spec?.nodeAffinity)).filter((n): n is string => Boolean(n)))].sort();
    return { volumes: fits.length, nodes };
  }

  /** The binder's choice (findMatchInStore) without locks: pre-bound first, then the smallest fit per group. */
  private async findMatch(claim: PersistentVolumeClaim, opts: MatchOptions): Promise<{ volume: PersistentVolume; prebound: boolean } | undefined> {
    const ns = claim.metadata.namespace ?? '';
    const reserved = claim.metadata.name ? await volumesClaimedBy(this.store, ns, claim.metadata.name) : [];
    const bits = (pv: PersistentVolume) => accessModesToBits(pv.spec?.accessModes ?? []);
    for (const set of accessModeGroups(claim.spec?.accessModes ?? [])) {
      const pre = pickInGroup(claim, reserved.filter((v) => bits(v) === set).sort(bySize), opts);
      if (pre) return pre;
      if (opts.delayBinding && !opts.node) continue;
      const rows = await this.candidates(claim, set, 16);
      if (!rows) return undefined;
      const found = pickInGroup(claim, rows, opts);
      if (found) return found;
    }
    return undefined;
  }

  /** Available volumes of the claim's class, mode and access-mode set, at least its size, smallest first; undefined when its selector is invalid. */
  private async candidates(claim: PersistentVolumeClaim, accessModes: number, limit: number): Promise<PersistentVolume[] | undefined> {
    let labels;
    try {
      labels = claim.spec?.selector ? labelSelectorToSelector(claim.spec.selector).requirements : undefined;
    } catch {
      return undefined;
    }
    const rows = await availableVolumes(this.store, {
      storageClass: claimClass(claim),
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      accessModes,
      minBytes: quantityToBytes(requestedStorage(claim)).toString(),
      labels,
      limit,
    });
    return rows.map((r) => r.volume);
  }
}
