// What deleting several claims does, for the bulk delete dialog: which are in use (each
// then stays Terminating until its pods go) and whose data goes with it (reclaim policy
// Delete). The same facts the single delete dialog gives, summed up. Pure.
import { isPodTerminated, podClaimNames } from '@/server/domain/pod-claims';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { Pod } from '@/server/resources/pod/schema';

export interface BulkClaimDeletion {
  /** "ns/claim" → the pods (not finished) that use it. */
  inUse: { claim: string; pods: string[] }[];
  /** Claims whose volume has reclaim policy Delete: their data is deleted with them. */
  dataDeleted: string[];
  /** Bound claims whose policy could not be learned. */
  policyUnknown: string[];
}

const label = (c: PersistentVolumeClaim) => `${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`;

/** `policyOf(claim)`: the reclaim policy of its volume (or, for a dynamic one, its class), when known. */
export function bulkClaimDeletion(claims: PersistentVolumeClaim[], pods: Pod[], policyOf: (c: PersistentVolumeClaim) => string | undefined): BulkClaimDeletion {
  const out: BulkClaimDeletion = { inUse: [], dataDeleted: [], policyUnknown: [] };
  for (const c of claims) {
    const users = pods
      .filter((p) => p.metadata.namespace === c.metadata.namespace && !isPodTerminated(p) && podClaimNames(p).includes(c.metadata.name ?? ''))
      .map((p) => p.metadata.name ?? '')
      .sort();
    if (users.length > 0) out.inUse.push({ claim: label(c), pods: users });
    if (!c.spec?.volumeName) continue;
    const policy = policyOf(c);
    if (policy === 'Delete') out.dataDeleted.push(label(c));
    else if (policy === undefined) out.policyUnknown.push(label(c));
  }
  return out;
}
