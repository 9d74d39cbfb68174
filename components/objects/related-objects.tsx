'use client';
// Objects related to the one shown: a class's volumes and claims, a node's local
// volumes, a namespace's claims. (A volume's claim and a claim's volume are in the
// summary.)
import { Group, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { phaseOf } from './kinds';
import { isKind } from '@/server/resources/of-kind';
import { ObjectLink } from './object-link';
import { usePermissions } from '../session/session';
import { StatusBadge } from './status-badge';
import { useTRPC } from '../data/trpc';

const LIMIT = 50;

function Section({ title, testId, items, empty }: { title: string; testId: string; items: ReactNode[]; empty: string }) {
  return (
    <Stack gap={4} data-testid={testId} style={{ minWidth: 220, flex: 1 }}>
      <Text size="xs" fw={700} c="dimmed" tt="uppercase">
        {title} ({items.length})
      </Text>
      {items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        items.slice(0, LIMIT)
      )}
      {items.length > LIMIT && (
        <Text size="xs" c="dimmed">
          and {items.length - LIMIT} more
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

  const volumes = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'PersistentVolume' }), enabled: wantVolumes });
  const claims = useQuery({
    ...trpc.objects.list.queryOptions({ kind: 'PersistentVolumeClaim', namespace: claimsNs }),
    enabled: wantClaims,
  });

  const sections: ReactNode[] = [];
  if (kind === 'StorageClass') {
    if (wantVolumes) {
      const vs = (volumes.data?.items ?? []).filter((v) => isKind(v, 'PersistentVolume') && (v.spec?.storageClassName ?? '') === name);
      sections.push(<Section key="v" title="Volumes of this class" testId="related-volumes" items={vs.map((v) => <Item key={v.metadata.name} obj={v} />)} empty="None" />);
    }
    if (wantClaims) {
      const cs = (claims.data?.items ?? []).filter((c) => isKind(c, 'PersistentVolumeClaim') && (c.spec?.storageClassName ?? '') === name);
      sections.push(<Section key="c" title="Claims using this class" testId="related-claims" items={cs.map((c) => <Item key={`${c.metadata.namespace}/${c.metadata.name}`} obj={c} />)} empty="None" />);
    }
  } else if (kind === 'Namespace' && wantClaims) {
    const cs = claims.data?.items ?? [];
    sections.push(<Section key="c" title="Claims in this namespace" testId="related-claims" items={cs.map((c) => <Item key={c.metadata.name} obj={c} />)} empty="None" />);
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
