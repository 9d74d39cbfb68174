'use client';
// The important fields of a VolumeSnapshot and of a SnapshotSchedule, for their pages' summaries.
import { Text } from '@mantine/core';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import { scheduleTarget } from '@/server/resources/snapshot-schedule/strategy';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { ageOf } from '../format/format';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { dimmed as dim, type SummaryContext, type SummaryItem } from '../objects/summary-parts';
import { snapshotRow } from './snapshot-view';
import { SourceClaimLink } from './source-claim-link';

export function snapshotSummary(obj: VolumeSnapshot, { now }: SummaryContext): SummaryItem[] {
  const r = snapshotRow(obj);
  const ns = obj.metadata.namespace;
  const claim = obj.spec?.source?.persistentVolumeClaimName;
  return [
    { label: 'Ready', value: <StatusBadge value={r.state} /> },
    { label: 'Of claim', value: claim ? <SourceClaimLink namespace={ns} name={claim} /> : dim(`content ${r.source}`) },
    { label: 'Restore size', value: r.restoreSize ? <SizeText value={r.restoreSize} /> : dim('not known yet') },
    ...(r.progress !== undefined ? [{ label: 'Copied', value: `${Math.floor(r.progress * 100)}%` }] : []),
    { label: 'Taken', value: obj.status?.creationTime ? `${ageOf(obj.status.creationTime, now)} ago` : dim('not yet') },
    { label: 'Snapshot class', value: obj.spec?.volumeSnapshotClassName ?? dim('the default of its driver') },
    { label: 'Taken by', value: r.schedule ? <ObjectLink kind="SnapshotSchedule" namespace={ns} name={r.schedule}>{`schedule ${r.schedule}`}</ObjectLink> : 'hand' },
    ...(r.error ? [{ label: 'Error', value: <Text span c="red" inherit>{r.error}</Text> }] : []),
  ];
}

export function scheduleSummary(obj: SnapshotSchedule, { now }: SummaryContext): SummaryItem[] {
  const st = obj.status;
  const claim = obj.spec?.target?.claimName;
  return [
    { label: 'Every', value: obj.spec?.every },
    { label: 'Keeps', value: `${obj.spec?.keep} newest per claim` },
    { label: 'Snapshots', value: claim ? <SourceClaimLink namespace={obj.metadata.namespace} name={claim} /> : `claims matching ${scheduleTarget(obj)}` },
    { label: 'Claims now', value: st?.claims?.length ? st.claims.join(', ') : dim('none') },
    { label: 'Last slot', value: st?.lastScheduleTime ? `${ageOf(st.lastScheduleTime, now)} ago` : dim('none yet') },
    { label: 'Next slot', value: st?.nextScheduleTime ? new Date(st.nextScheduleTime).toLocaleString() : dim('—') },
    { label: 'Paused', value: obj.spec?.suspend ? 'yes' : 'no' },
    ...(st?.message ? [{ label: 'Note', value: <Text span c="orange" inherit>{st.message}</Text> }] : []),
  ];
}
