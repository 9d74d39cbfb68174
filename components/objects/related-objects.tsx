'use client';
// Objects related to the one shown: a class's volumes and claims, a node's local
// volumes, a namespace's claims. (A volume's claim and a claim's volume are in the
// summary.)
import { Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { phaseOf } from './kinds';
import { ObjectLink } from './object-link';
import { usePermissions } from '../session/session';
import { StatusBadge } from './status-badge';
import { useTRPC } from '../data/trpc';

const LIMIT = 50;

function Section({ title, testId, items, total, loading, empty }: { title: string; testId: string; items: ReactNode[]; total: number; loading: boolean; empty: string }) {
  return (
    <Stack gap={4} data-testid={testId} style={{ minWidth: 220, flex: 1 }}>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {title} {loading ? '' : `(${total})`}
      </Text>
      {loading ? <Loader size="xs" aria-label={`Loading ${title.toLowerCase()}`} /> : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        items
      )}
      {total > items.length && (
        <Text size="xs" c="dimmed">
          and {total - items.length} more
        </Text>
      )}
    </Stack>
  );
}

function Item({ obj }: { obj: KubeObject }) {
  const phase = obj.metadata.deletionTimestamp ? 'Terminating' : (phaseOf(obj) ?? '');
  return (
    <Group gap={6} wrap="nowrap">
      <ObjectLink kind={obj.kind} namespace={obj.metadata.namespace} name={obj.metadata.name ?? ''}>
        {obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name}
      </ObjectLink>
      {phase && <StatusBadge value={phase} size="xs" />}
    </Group>
  );
}

export function RelatedObjects({ obj }: { obj: KubeObject }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const name = obj.metadata.name ?? '';
  const kind = obj.kind;
  // A node's volumes are on its page, a page at a time (components/nodes/node-storage.tsx).
  const wantVolumes = kind === 'StorageClass' && perms.can('list', 'PersistentVolume');
  const claimsNs = kind === 'Namespace' ? name : undefined;
  const wantClaims =
    (kind === 'StorageClass' && perms.canListSomewhere('PersistentVolumeClaim', true)) ||
    (kind === 'Namespace' && perms.can('list', 'PersistentVolumeClaim', name));

  // One page of each, filtered and counted by the server (a class may have tens of thousands).
  const byClass = { storageClass: [name] };
  const volumes = useQuery({ ...trpc.lists.page.queryOptions({ kind: 'PersistentVolume', fields: byClass, limit: LIMIT }), enabled: wantVolumes });
  const claims = useQuery({
    ...trpc.lists.page.queryOptions(kind === 'StorageClass' ? { kind: 'PersistentVolumeClaim', fields: byClass, limit: LIMIT } : { kind: 'PersistentVolumeClaim', namespace: claimsNs, limit: LIMIT }),
    enabled: wantClaims,
  });
  const section = (key: string, title: string, testId: string, q: typeof volumes) => (
    <Section
      key={key}
      title={title}
      testId={testId}
      loading={q.isPending}
      total={q.data?.total ?? 0}
      items={(q.data?.items ?? []).map((o) => <Item key={`${o.metadata.namespace ?? ''}/${o.metadata.name}`} obj={o} />)}
      empty="None"
    />
  );

  const sections: ReactNode[] = [];
  if (kind === 'StorageClass') {
    if (wantVolumes) sections.push(section('v', 'Volumes of this class', 'related-volumes', volumes));
    if (wantClaims) sections.push(section('c', 'Claims using this class', 'related-claims', claims));
  } else if (kind === 'Namespace' && wantClaims) {
    sections.push(section('c', 'Claims in this namespace', 'related-claims', claims));
  }
  if (sections.length === 0) return null;
  return (
    <Paper withBorder p="md">
      <Text fw={600} size="sm" mb="xs">
        Related
      </Text>
      <Group align="flex-start" gap="xl">
        {sections}
      </Group>
    </Paper>
  );
}
