// Upstream's ResourceQuota admission for claims, inside the write's own transaction: the
// namespace's quotas are locked (in name order) before the claims are counted, so two
// concurrent writes cannot both take the last room; an admitted write stores each
// quota's new status.used in the same transaction. A dry run runs the same check and
// writes nothing. Refusals are 403 Forbidden "exceeded quota: ..." as upstream.
import { StowageError } from '../domain/errors';
import { admitClaim, quotaUsed, type QuotaLimits } from '../domain/quota';
import { isScoped } from '../resources/resource-quota/validation';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { ResourceQuota } from '../resources/resource-quota/schema';
import type { ObjectStore, StoreTx } from '../store/object-store';

function limitsOf(q: ResourceQuota): QuotaLimits {
  return { name: q.metadata.name ?? '', hard: q.spec?.hard ?? {}, scoped: isScoped(q) };
}

function sameList(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
}

/** The status a quota should carry for these claims (upstream: hard copied from spec, used counted). */
export function quotaStatus(q: ResourceQuota, claims: PersistentVolumeClaim[]): { hard: Record<string, unknown>; used: Record<string, string> } {
  return { hard: { ...(q.spec?.hard ?? {}) }, used: quotaUsed(limitsOf(q), claims) };
}

/** Writes a quota's status when it differs from what it should be; answers whether it wrote. */
export async function refreshQuotaStatus(tx: StoreTx, q: ResourceQuota, claims: PersistentVolumeClaim[]): Promise<boolean> {
  const status = quotaStatus(q, claims);
  if (sameList(q.status?.hard, status.hard) && sameList(q.status?.used, status.used)) return false;
  await tx.update({ ...q, status }, { subresource: 'status' });
  return true;
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
