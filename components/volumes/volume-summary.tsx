'use client';
// The important fields of a PersistentVolume, for its page's summary.
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { accessModes, classLink, dimmed, shown, type SummaryContext, type SummaryItem } from '../objects/summary-parts';
import { VolumeUsed } from './used-cell';

export function volumeSummary(pv: PersistentVolume, { perms }: SummaryContext): SummaryItem[] {
  const spec = pv.spec ?? {};
  const status = pv.status ?? {};
  const claim = spec.claimRef;
  return shown([
    { label: 'Status', value: <StatusBadge value={pv.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? '')} /> },
    Boolean(status.reason || status.message) && { label: 'Reason', value: [status.reason, status.message].filter(Boolean).join(': ') },
    { label: 'Capacity', value: <SizeText value={spec.capacity?.storage} /> },
    { label: 'Used', value: <VolumeUsed pv={pv} /> },
    { label: 'Access modes', value: accessModes(spec.accessModes) },
    { label: 'Reclaim policy', value: spec.persistentVolumeReclaimPolicy ?? '' },
    { label: 'Storage class', value: classLink(spec.storageClassName, perms) },
    { label: 'Volume mode', value: spec.volumeMode ?? 'Filesystem' },
    {
      label: 'Claim',
      value: claim?.name ? (
        <ObjectLink kind="PersistentVolumeClaim" namespace={claim.namespace} name={claim.name} allowed={perms.can('get', 'PersistentVolumeClaim', claim.namespace)}>
          {`${claim.namespace}/${claim.name}`}
        </ObjectLink>
      ) : (
        dimmed('none')
      ),
    },
    Boolean(spec.mountOptions?.length) && { label: 'Mount options', value: spec.mountOptions!.join(', ') },
  ]);
}
