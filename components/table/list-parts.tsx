'use client';
// What both kinds of list page share: the namespaces a user may filter by, the note on
// which namespaces a developer sees, and the error of a failed list.
import { Alert, Badge, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ErrorInfo } from '../format/format';
import type { KindUi } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export function useNamespaceOptions(ui: KindUi): string[] {
  const trpc = useTRPC();
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('list', ui.kind);
  const allNamespaces = useQuery({
    ...trpc.lists.page.queryOptions({ kind: 'Namespace', limit: 500 }),
    enabled: ui.namespaced && nsChoices === 'all',
  });
  return nsChoices === 'all' ? (allNamespaces.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean) : nsChoices;
}

export function NamespaceNote({ ui }: { ui: KindUi }) {
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('list', ui.kind);
  if (!ui.namespaced || nsChoices === 'all') return null;
  return (
    <Group gap={4}>
      <Text size="xs" c="dimmed">
        Showing your namespaces:
      </Text>
      {nsChoices.map((n) => (
        <Badge key={n} size="xs" variant="outline" color="gray" tt="none">
          {n}
        </Badge>
      ))}
    </Group>
  );
}

export function ListError({ ui, err }: { ui: KindUi; err: ErrorInfo | undefined }) {
  if (!err) return null;
  return (
    <Alert color={err.code === 'FORBIDDEN' ? 'gray' : 'red'} title={err.code === 'FORBIDDEN' ? 'Not available to you' : `Could not list ${ui.noun}`} data-testid={err.code === 'FORBIDDEN' ? 'forbidden' : 'list-error'}>
      {err.message}
    </Alert>
  );
}
