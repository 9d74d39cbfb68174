// What deleting a claim does, in words for the delete dialog: who still uses it (the
// deletion then waits for them) and what the volume's reclaim policy does to the data.
// Pure.
import { pvcProtectionFinalizer } from '@/server/domain/well-known/finalizers';

export interface ClaimDeletion {
  /** Pods (not Succeeded/Failed) that use the claim now. */
  usedBy: string[];
  volumeName?: string;
  /** The volume's reclaim policy, when known. */
  policy?: string;
  /** Where the policy was learned: the volume itself, or the claim's class (dynamic volumes). */
  policySource?: 'volume' | 'class';
}

export function inUseSentence(usedBy: string[]): string | undefined {
  if (usedBy.length === 0) return undefined;
  const list = usedBy.join(', ');
  const pods = usedBy.length === 1 ? `pod ${list}` : `pods ${list}`;
  return `In use by ${pods}: the claim stays Terminating (${pvcProtectionFinalizer}) until ${usedBy.length === 1 ? 'that pod is' : 'those pods are'} deleted or finished.`;
}

export function reclaimSentence(d: ClaimDeletion): string {
  if (!d.volumeName) return 'The claim is not bound to a volume: no data is lost.';
  const from = d.policySource === 'class' ? ' (from its storage class)' : '';
  switch (d.policy) {
    case 'Delete':
      return `Its volume ${d.volumeName} has reclaim policy Delete${from}: once the claim is gone, the volume and all data on it are deleted.`;
    case 'Retain':
      return `Its volume ${d.volumeName} has reclaim policy Retain${from}: the volume and its data are kept (Released) until an administrator reclaims them.`;
    case 'Recycle':
      return `Its volume ${d.volumeName} has reclaim policy Recycle${from} (deprecated): its data is scrubbed and the volume offered to new claims.`;
    default:
      return `Its volume ${d.volumeName} keeps or loses its data according to its reclaim policy, which you cannot see.`;
  }
}
