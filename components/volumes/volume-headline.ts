// The one line at the top of a volume's page: its phase and what it means now. Pure.
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { usageOf } from '@/server/domain/volume-usage';
import { quantityToBytes, parseQuantity } from '@/server/domain/quantity';
import { formatSize } from '../format/size';

export interface VolumeHeadline {
  phase: string;
  text: string;
}

/** "Bound to claim team-a/data; 1.2 GiB of 10 GiB used (12%)." and the like. */
export function volumeHeadline(pv: PersistentVolume): VolumeHeadline {
  const phase = pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? 'Pending');
  const ref = pv.spec?.claimRef;
  const claim = ref?.name ? `${ref.namespace}/${ref.name}` : '';
  const used = usedText(pv);
  switch (phase) {
    case 'Terminating':
      return { phase, text: 'Being deleted: it goes once its finalizers are removed.' };
    case 'Bound':
      return { phase, text: `Bound to claim ${claim || '(unknown)'}${used ? `; ${used}` : ''}.` };
    case 'Available':
      return { phase, text: claim ? `Available, reserved for claim ${claim}: only that claim binds it.` : 'Available: a claim that fits binds it.' };
    case 'Released':
      return { phase, text: `Released: its claim${claim ? ` ${claim}` : ''} was deleted.` };
    case 'Failed':
      return { phase, text: 'Failed: reclaiming it went wrong.' };
    default:
      return { phase, text: 'Pending: not yet ready to be bound.' };
  }
}

function usedText(pv: PersistentVolume): string {
  const u = usageOf(pv);
  if (!u) return '';
  const q = parseQuantity(String(pv.spec?.capacity?.storage ?? ''));
  const cap = q ? quantityToBytes(q) : 0n;
  const pct = cap > 0n ? ` (${Number((u.bytes * 100n) / cap)}%)` : '';
  return `${u.partial ? 'at least ' : ''}${formatSize(u.bytes)}${cap > 0n ? ` of ${formatSize(cap)}` : ''} used${pct}`;
}
