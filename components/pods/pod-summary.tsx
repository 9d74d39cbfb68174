'use client';
// The important fields of a Pod, for its page's summary.
import type { Pod } from '@/server/resources/pod/schema';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { dimmed, pairs, type SummaryContext, type SummaryItem } from '../objects/summary-parts';

export function podSummary(pod: Pod, { perms }: SummaryContext): SummaryItem[] {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  return [
    { label: 'Status', value: <StatusBadge value={pod.metadata.deletionTimestamp ? 'Terminating' : (status.reason || status.phase || 'Pending')} /> },
    {
      label: 'Node',
      value: spec.nodeName ? <ObjectLink kind="Node" name={spec.nodeName} allowed={perms.can('get', 'Node')} /> : dimmed('not placed yet'),
    },
    { label: 'Containers', value: (spec.containers ?? []).map((c) => `${c?.name} (${c?.image ?? 'no image'})`).join(', ') },
    { label: 'Node selector', value: pairs(spec.nodeSelector) },
  ];
}
