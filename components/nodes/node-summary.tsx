'use client';
// The important fields of a Node, for its page's summary.
import { Badge, Group } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Node } from '@/server/resources/node/schema';
import { exactSize, formatSize, isSizeResource } from '../format/size';
import { StatusBadge } from '../objects/status-badge';
import { shown, type SummaryItem } from '../objects/summary-parts';

/** Resource amounts (a node's capacity): sizes read as sizes, the exact quantity as the tooltip. */
function resources(map: Record<string, unknown> | undefined): ReactNode {
  const entries = Object.entries(map ?? {});
  if (entries.length === 0) return null;
  return (
    <Group gap={4}>
      {entries.map(([k, v]) => {
        const size = isSizeResource(k) && typeof v === 'string';
        return (
          <Badge key={k} variant="light" color="gray" size="sm" tt="none" fw={500} title={size ? exactSize(v) : undefined}>
            {k}={size ? formatSize(v) : String(v)}
          </Badge>
        );
      })}
    </Group>
  );
}

export function nodeSummary(node: Node): SummaryItem[] {
  const spec = node.spec ?? {};
  const status = node.status ?? {};
  const ready = (status.conditions ?? []).find((c) => c.type === 'Ready');
  return shown([
    { label: 'Status', value: <StatusBadge value={ready ? (ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown') : 'Unknown'} /> },
    Boolean(ready?.message) && { label: 'Condition', value: ready!.message },
    { label: 'Addresses', value: (status.addresses ?? []).map((a) => `${a.type}: ${a.address}`).join(', ') },
    Boolean(status.capacity) && { label: 'Capacity', value: resources(status.capacity) },
    Boolean(status.nodeInfo?.kubeletVersion) && { label: 'Version', value: String(status.nodeInfo!.kubeletVersion) },
    Boolean(status.nodeInfo?.osImage) && { label: 'OS', value: `${String(status.nodeInfo!.osImage)} ${String(status.nodeInfo!.kernelVersion ?? '')}` },
    Boolean(spec.unschedulable) && { label: 'Scheduling', value: 'disabled' },
  ]);
}
