// "12 of 50 Gi left in team-a for class fast": the room the namespace's quotas leave for a
// claim the form is about to create, and whether that claim would be refused (the same
// pure check the write runs, over a fresh count of the namespace's claims). Nothing is written.
import { isAllowed, type Principal } from '../domain/authorization';
import { claimClass } from '../domain/matching';
import { formatQuantity, quantityToBytes } from '../domain/quantity';
import {
  admitClaim,
  byClass,
  CLAIM_COUNT,
  CLAIM_OBJECT_COUNT,
  quotaUsed,
  REQUESTS_STORAGE,
  roomLeft,
  storageRoomText,
} from '../domain/quota';
import { isScoped } from '../resources/resource-quota/validation';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { ObjectStore } from '../store/object-store';
import { forbidden, strategyOrThrow } from './object-access';
import { ofKind } from '../resources/of-kind';

export interface QuotaLimitRoom {
  quota: string;
  resource: string;
  /** The class this limit is for; absent for the whole namespace. */
  className?: string;
  hard: string;
  used: string;
  left: string;
  /** For the form: "12 of 50 Gi left in team-a for class fast". */
  text: string;
}

export interface QuotaRoom {
  namespace: string;
  limits: QuotaLimitRoom[];
  /** Upstream's message when this claim would be refused ("exceeded quota: ..."). */
  refusal?: string;
}

export async function quotaRoom(store: ObjectStore, p: Principal, claim: PersistentVolumeClaim): Promise<QuotaRoom> {
  const namespace = typeof claim?.metadata?.namespace === 'string' ? claim.metadata.namespace : '';
  if (!namespace) return { namespace, limits: [] };
  const s = strategyOrThrow('ResourceQuota');
  if (!isAllowed(p, 'list', s.kind, namespace)) throw forbidden(p, 'list', s, namespace);
  const quotas = ofKind((await store.list('ResourceQuota', { namespace })).items, 'ResourceQuota').filter((q) => !isScoped(q));
  if (quotas.length === 0) return { namespace, limits: [] };
  const name = typeof claim.metadata?.name === 'string' ? claim.metadata.name : '';
  const claims = ofKind((await store.list('PersistentVolumeClaim', { namespace })).items, 'PersistentVolumeClaim').filter((c) => !name || c.metadata.name !== name);
  const cls = claimClass(claim);
  const where = (className?: string) => `in ${namespace}${className ? ` for class ${className}` : ''}`;
  const limits: QuotaLimitRoom[] = [];
  let refusal: string | undefined;
  for (const q of quotas) {
    const limitsOf = { name: q.metadata.name ?? '', hard: q.spec?.hard ?? {} };
    const used = quotaUsed(limitsOf, claims);
    const wanted: [string, string | undefined][] = [
      [REQUESTS_STORAGE, undefined],
      [CLAIM_COUNT, undefined],
      [CLAIM_OBJECT_COUNT, undefined],
      ...(cls ? ([[byClass(cls, REQUESTS_STORAGE), cls], [byClass(cls, CLAIM_COUNT), cls]] as [string, string][]) : []),
    ];
    for (const [resource, className] of wanted) {
      const room = roomLeft(limitsOf.hard, used, resource);
      if (!room) continue;
      const storage = resource.endsWith(REQUESTS_STORAGE);
      const text = storage
        ? `${storageRoomText(room.left, room.hard)} left ${where(className)}`
        : `${quantityToBytes(room.left)} of ${quantityToBytes(room.hard)} claims left ${where(className)}`;
      limits.push({ quota: limitsOf.name, resource, className, hard: formatQuantity(room.hard), used: formatQuantity(room.used), left: formatQuantity(room.left), text });
    }
    if (!refusal && claim.spec?.resources?.requests?.storage !== undefined) {
      const d = admitClaim(limitsOf, used, undefined, claim);
      if (!d.allowed) refusal = d.message;
    }
  }
  return { namespace, limits, ...(refusal ? { refusal } : {}) };
}
