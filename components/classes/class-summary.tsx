'use client';
// The important fields of a StorageClass, for its page's summary.
import { Badge, Code } from '@mantine/core';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { isDefaultClass } from '../objects/kinds';
import { shown, type SummaryItem } from '../objects/summary-parts';

export function classSummary(sc: StorageClass): SummaryItem[] {
  return shown([
    { label: 'Default class', value: isDefaultClass(sc) ? <Badge size="sm" color="indigo" variant="light">default</Badge> : 'no' },
    { label: 'Provisioner', value: <Code>{sc.provisioner ?? ''}</Code> },
    { label: 'Reclaim policy', value: sc.reclaimPolicy ?? 'Delete' },
    { label: 'Binding mode', value: sc.volumeBindingMode ?? 'Immediate' },
    { label: 'Volume expansion', value: sc.allowVolumeExpansion ? 'allowed' : 'not allowed' },
    Boolean(sc.mountOptions?.length) && { label: 'Mount options', value: sc.mountOptions!.join(', ') },
    Boolean(sc.allowedTopologies?.length) && {
      label: 'Allowed topologies',
      value: sc.allowedTopologies!
        .map((t) => (t.matchLabelExpressions ?? []).map((e) => `${e.key} in [${(e.values ?? []).join(', ')}]`).join(' and '))
        .join(' or '),
    },
  ]);
}
