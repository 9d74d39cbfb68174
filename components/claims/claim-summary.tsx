'use client';
// The important fields of a PersistentVolumeClaim, for its page's summary.
import { Code } from '@mantine/core';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { accessModes, classLink, dimmed, shown, type SummaryContext, type SummaryItem } from '../objects/summary-parts';

export function claimSummary(claim: PersistentVolumeClaim, { perms }: SummaryContext): SummaryItem[] {
  const spec = claim.spec ?? {};
  const status = claim.status ?? {};
  return shown([
    { label: 'Status', value: <StatusBadge value={claim.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? '')} /> },
    {
      label: 'Volume',
      value: spec.volumeName ? (
        <ObjectLink kind="PersistentVolume" name={spec.volumeName} allowed={perms.can('get', 'PersistentVolume')} />
      ) : (
        dimmed('not bound yet')
      ),
    },
    { label: 'Requested', value: <SizeText value={spec.resources?.requests?.storage} /> },
    { label: 'Capacity', value: <SizeText value={status.capacity?.storage} /> },
    { label: 'Access modes', value: accessModes(spec.accessModes) },
    { label: 'Storage class', value: classLink(spec.storageClassName, perms) },
    { label: 'Volume mode', value: spec.volumeMode ?? 'Filesystem' },
    Boolean(spec.selector) && { label: 'Selector', value: <Code>{JSON.stringify(spec.selector)}</Code> },
    Boolean(spec.dataSource?.name) && { label: 'Made from', value: <ObjectLink kind={spec.dataSource!.kind ?? ''} namespace={claim.metadata.namespace} name={spec.dataSource!.name!}>{`${spec.dataSource!.kind} ${spec.dataSource!.name}`}</ObjectLink> },
  ]);
}
