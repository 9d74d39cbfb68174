// Upstream's ResourceQuota admission, inside the write's own transaction, for claims (their
// storage and counts) and for every other namespaced kind (object counts, and the bytes
// snapshot copies take): the namespace's quotas are locked (in name order) before anything
// is counted, so two concurrent writes cannot both take the last room; an admitted write
// stores each quota's new status.used in the same transaction. A dry run runs the same
// check and writes nothing. Refusals are 403 Forbidden "exceeded quota: ..." as upstream.
import { qualifiedResource, StowageError } from '../domain/errors';
import { admitClaim, isClaimResource, quotaUsed, type QuotaLimits, type ResourceList } from '../domain/quota';
import { admitObjectCreate, bytesText, countedKind, objectUsage, snapshotBytes, SNAPSHOT_STORAGE, type QuotaKind } from '../domain/quota-objects';
import { isScoped } from '../resources/resource-quota/validation';
import { strategies } from '../resources/registry';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { ResourceQuota } from '../resources/resource-quota/schema';
import type { KubeObject } from '../resources/types';
import { isKind } from '../resources/of-kind';
import type { ObjectStore, StoreTx } from '../store/object-store';
import { countObjectsIn } from '../store/quota-usage';

function limitsOf(q: ResourceQuota): QuotaLimits {
  return { name: q.metadata.name ?? '', hard: q.spec?.hard ?? {}, scoped: isScoped(q) };
}

function sameList(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
}

/** The namespaced kinds a quota's object counts may name (every namespaced kind Stowage stores). */
export const countedKinds: (QuotaKind & { kind: string })[] = strategies.filter((s) => s.namespaced).map((s) => ({ kind: s.kind, plural: s.plural, group: s.group }));

/** An object the count leaves out: one being created, counted by its create's own check. */
interface Leave {
  kind: string;
  name: string;
}

/** The bytes the namespace's snapshots count against SNAPSHOT_STORAGE (`leave` not among them). */
async function snapshotStorageIn(tx: StoreTx, namespace: string, leave?: Leave): Promise<bigint> {
  const snaps = (await tx.listIn('VolumeSnapshot', namespace)).filter((v) => !(leave?.kind === 'VolumeSnapshot' && v.metadata.name === leave.name));
  if (snaps.length === 0) return 0n;
  const claims = new Map((await tx.listIn('PersistentVolumeClaim', namespace)).map((c) => [c.metadata.name ?? '', c]));
  return snaps.reduce((sum, v) => sum + snapshotBytes(v, claims), 0n);
}

/**
 * A quota's usage of the resources that are not a claim's: object counts and snapshot
 * bytes, counted in the caller's transaction (`leave` left out). Names Stowage does not
 * count are left out; a scoped quota counts nothing.
 */
async function objectUsed(tx: StoreTx, q: ResourceQuota, leave?: Leave): Promise<ResourceList> {
  const namespace = q.metadata.namespace ?? '';
  const out: ResourceList = {};
  for (const name of Object.keys(q.spec?.hard ?? {}).sort()) {
    if (isClaimResource(name)) continue;
    if (name === SNAPSHOT_STORAGE) {
      out[name] = isScoped(q) ? '0' : bytesText(await snapshotStorageIn(tx, namespace, leave));
      continue;
    }
    const k = countedKind(name, countedKinds);
    if (!k) continue;
    out[name] = isScoped(q) ? '0' : String(await countObjectsIn(tx, k.kind, namespace, leave?.kind === k.kind ? leave.name : undefined));
  }
  return out;
}

/** The status a quota should carry (upstream: hard copied from spec, used counted): claims given, other objects counted in `tx`. */
export async function quotaStatus(tx: StoreTx, q: ResourceQuota, claims: PersistentVolumeClaim[]): Promise<{ hard: Record<string, unknown>; used: Record<string, string> }> {
  return { hard: { ...(q.spec?.hard ?? {}) }, used: { ...quotaUsed(limitsOf(q), claims), ...(await objectUsed(tx, q)) } };
}

/** Writes a quota's status when it differs from `status`; answers whether it wrote. */
async function writeStatus(tx: StoreTx, q: ResourceQuota, status: { hard: Record<string, unknown>; used: Record<string, string> }): Promise<boolean> {
  if (sameList(q.status?.hard, status.hard) && sameList(q.status?.used, status.used)) return false;
  await tx.update({ ...q, status }, { subresource: 'status' });
  return true;
}

/** Writes a quota's status when it differs from what it should be; answers whether it wrote. */
export async function refreshQuotaStatus(tx: StoreTx, q: ResourceQuota, claims: PersistentVolumeClaim[]): Promise<boolean> {
  return writeStatus(tx, q, await quotaStatus(tx, q, claims));
}

/**
 * The bytes a created object's copy of a volume takes against SNAPSHOT_STORAGE (`claims`:
 * its namespace's), undefined for an object that copies nothing. The hook for backups:
 * a backup kind answers its bytes here, and its creates are charged and refused alike.
 */
function copyBytes(created: KubeObject, claims: PersistentVolumeClaim[]): bigint | undefined {
  if (isKind(created, 'VolumeSnapshot')) return snapshotBytes(created, new Map(claims.map((c) => [c.metadata.name ?? '', c])));
  return undefined;
}

/**
 * Checks the create of an object that is not a claim (`created`, as the create's own
 * transaction wrote it) against every quota of its namespace that names a resource it
 * counts for, and keeps their status.used. Throws 403 on the first quota (in name order)
 * it would exceed. A namespace whose quotas name nothing it counts for costs one read and
 * takes no lock. Controllers that create objects for users (the snapshot schedules) call it
 * too, as upstream's controllers' creates pass the apiserver's admission.
 */
export async function admitObjectQuota(tx: StoreTx, created: KubeObject, kind?: QuotaKind): Promise<void> {
  const namespace = created.metadata?.namespace;
  const name = created.metadata?.name ?? '';
  const k = kind ?? countedKinds.find((c) => c.kind === created.kind);
  if (!namespace || !k) return;
  const counts = objectUsage(k);
  const copies = copyBytes(created, []) !== undefined;
  const concerns = (q: ResourceQuota) => Object.keys(q.spec?.hard ?? {}).some((r) => counts.has(r) || (r === SNAPSHOT_STORAGE && copies));
  // Locked only where a quota counts this kind: creates of kinds no quota limits never wait on each other.
  if (!(await tx.listIn('ResourceQuota', namespace)).some(concerns)) return;
  const concerned = (await tx.listIn('ResourceQuota', namespace, { lock: true })).filter(concerns);
  const leave = { kind: created.kind, name };
  const claims = await tx.listIn('PersistentVolumeClaim', namespace);
  const adds = objectUsage(k, copyBytes(created, claims));
  const after: [ResourceQuota, ResourceList][] = [];
  for (const q of concerned) {
    const before = await objectUsed(tx, q, leave);
    const decision = admitObjectCreate(limitsOf(q), before, adds);
    if (!decision.allowed) {
      throw new StowageError('Forbidden', `${qualifiedResource(k.plural, k.group)} "${name}" is forbidden: ${decision.message}`, { kind: k.plural, name, group: k.group });
    }
    after.push([q, { ...before, ...decision.used }]);
  }
  for (const [q, used] of after) await writeStatus(tx, q, { hard: { ...(q.spec?.hard ?? {}) }, used: { ...quotaUsed(limitsOf(q), claims), ...used } });
}

/**
 * Checks a claim create (`prev` absent) or update against every quota of its namespace,
 * in the caller's transaction, and keeps their status.used. Throws 403 on the first quota
 * (in name order) the write would exceed.
 */
export async function admitClaimQuota(tx: StoreTx, prev: PersistentVolumeClaim | undefined, next: PersistentVolumeClaim, replaces?: string): Promise<void> {
  const namespace = next.metadata?.namespace;
  const name = next.metadata?.name ?? '';
  if (!namespace) return;
  const quotas = await tx.listIn('ResourceQuota', namespace, { lock: true });
  if (quotas.length === 0) return;
  // `replaces`: the uid of a claim this one takes the place of (a re-create's check), not counted.
  const others = (await tx.listIn('PersistentVolumeClaim', namespace)).filter((c) => c.metadata.name !== name && (!replaces || c.metadata.uid !== replaces));
  const before = prev ? [...others, prev] : others;
  const after = [...others, next];
  for (const q of quotas) {
    const decision = admitClaim(limitsOf(q), quotaUsed(limitsOf(q), before), prev, next);
    if (!decision.allowed) {
      throw new StowageError('Forbidden', `persistentvolumeclaims "${name}" is forbidden: ${decision.message}`, {
        kind: 'persistentvolumeclaims',
        name,
        group: '',
      });
    }
  }
  for (const q of quotas) await refreshQuotaStatus(tx, q, after);
}

/**
 * Brings the status of every quota of `namespace` up to date in one transaction (quotas
 * locked as claim admission locks them); answers the resourceVersions it wrote.
 */
export async function syncQuotas(store: ObjectStore, namespace: string): Promise<string[]> {
  let written: StoreTx | undefined;
  await store.transact(async (tx) => {
    written = tx;
    const quotas = await tx.listIn('ResourceQuota', namespace, { lock: true });
    if (quotas.length === 0) return;
    const claims = await tx.listIn('PersistentVolumeClaim', namespace);
    for (const q of quotas) await refreshQuotaStatus(tx, q, claims);
  });
  // Versions are known once the transaction has committed.
  return (written?.writes ?? []).map((w) => String(w.object.metadata.resourceVersion));
}
