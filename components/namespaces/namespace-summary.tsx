'use client';
// The important fields of a Namespace, for its page's summary: its lists, and while it is
// Terminating, since when and what it still holds (the namespace controller's conditions).
import { Anchor, Group, Text } from '@mantine/core';
import Link from 'next/link';
import { remainingOf, type NamespaceCondition } from '@/server/domain/namespace-lifecycle';
import type { Namespace } from '@/server/resources/namespace/schema';
import { strategyForResource } from '@/server/resources/registry';
import { ageOf } from '../format/format';
import { kindUi } from '../objects/kinds';
import { StatusBadge } from '../objects/status-badge';
import type { SummaryContext, SummaryItem } from '../objects/summary-parts';

/** A Terminating namespace: since when, and what it still holds (the namespace controller's conditions). */
function terminatingItems(ns: Namespace, now: number): SummaryItem[] {
  if (!ns.metadata.deletionTimestamp) return [];
  const left = remainingOf(ns.status?.conditions as NamespaceCondition[] | undefined);
  const name = encodeURIComponent(ns.metadata.name ?? '');
  const items: SummaryItem[] = [{ label: 'Deleting', value: `since ${ageOf(ns.metadata.deletionTimestamp, now)} ago: its content is deleted first, then the namespace goes` }];
  items.push({
    label: 'Still holds',
    value:
      left.resources.length === 0 ? (
        <Text span inherit c="dimmed">nothing reported yet</Text>
      ) : (
        <Group gap={6} data-testid="namespace-remaining">
          {left.resources.map((r) => {
            const ui = kindUi(strategyForResource(r.group, r.resource)?.kind ?? '');
            const label = `${r.count} ${ui?.noun ?? r.resource}`;
            return ui?.namespaced ? (
              <Anchor key={r.resource + r.group} component={Link} href={`${ui.route}?namespace=${name}`} inherit>
                {label}
              </Anchor>
            ) : (
              <Text key={r.resource + r.group} span inherit>{label}</Text>
            );
          })}
        </Group>
      ),
  });
  if (left.finalizers.length > 0) {
    items.push({ label: 'Waiting on', value: left.finalizers.map((f) => `${f.finalizer} (${f.count})`).join(', ') });
  }
  if (left.failure) items.push({ label: 'Deletion failed', value: <Text span inherit c="red">{left.failure}</Text> });
  return items;
}

export function namespaceSummary(ns: Namespace, { perms, now }: SummaryContext): SummaryItem[] {
  const status = ns.status ?? {};
  const name = encodeURIComponent(ns.metadata.name ?? '');
  return [
    { label: 'Status', value: <StatusBadge value={ns.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? 'Active')} /> },
    {
      label: 'In this namespace',
      value: (
        <Group gap="md">
          {perms.can('list', 'PersistentVolumeClaim', ns.metadata.name) && (
            <Anchor component={Link} href={`/claims?namespace=${name}`} inherit>
              Claims
            </Anchor>
          )}
          {perms.can('list', 'Event', ns.metadata.name) && (
            <Anchor component={Link} href={`/events?namespace=${name}`} inherit>
              Events
            </Anchor>
          )}
        </Group>
      ),
    },
    ...terminatingItems(ns, now),
  ];
}
