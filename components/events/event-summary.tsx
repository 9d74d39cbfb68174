'use client';
// The important fields of an Event, for its page's summary.
import type { Event } from '@/server/resources/event/schema';
import { ageOf } from '../format/format';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import type { SummaryContext, SummaryItem } from '../objects/summary-parts';

export function eventSummary(ev: Event, { perms, now }: SummaryContext): SummaryItem[] {
  const io = ev.involvedObject ?? {};
  return [
    { label: 'Type', value: <StatusBadge value={ev.type ?? ''} /> },
    { label: 'Reason', value: ev.reason ?? '' },
    { label: 'Message', value: ev.message ?? '' },
    {
      label: 'Object',
      value: io.name ? (
        <ObjectLink kind={io.kind ?? ''} namespace={io.namespace} name={io.name} allowed={perms.can('get', io.kind ?? '', io.namespace)}>
          {`${io.kind}/${io.namespace ? `${io.namespace}/` : ''}${io.name}`}
        </ObjectLink>
      ) : (
        ''
      ),
    },
    { label: 'Count', value: String(ev.series?.count ?? ev.count ?? 1) },
    { label: 'First seen', value: ageOf(ev.firstTimestamp ?? ev.eventTime, now) + ' ago' },
    { label: 'Last seen', value: ageOf(ev.lastTimestamp ?? ev.series?.lastObservedTime ?? ev.eventTime, now) + ' ago' },
    { label: 'Source', value: [ev.source?.component ?? ev.reportingComponent, ev.source?.host].filter(Boolean).join(', ') },
  ];
}
