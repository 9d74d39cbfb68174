// The pieces a kind's summary is made of: an item, the context it is read in, and the
// values several kinds show alike (access modes, key=value pairs, a class link).
import { Badge, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { abbreviateAccessModes } from '@/server/domain/access-modes';
import type { Permissions } from '../session/session';
import { ObjectLink } from './object-link';

export interface SummaryItem {
  label: string;
  value: ReactNode;
}

/** What a summary may read besides its object: the viewer's permissions and the clock. */
export interface SummaryContext {
  perms: Permissions;
  now: number;
}

/** The items that apply (an item written as `condition && { ... }` is left out when false). */
export function shown(items: (SummaryItem | false)[]): SummaryItem[] {
  return items.filter((i): i is SummaryItem => Boolean(i));
}

export function dimmed(text: string): ReactNode {
  return (
    <Text span c="dimmed" inherit>
      {text}
    </Text>
  );
}

export function accessModes(list: unknown): ReactNode {
  if (!Array.isArray(list) || list.length === 0) return null;
  return (
    <Text span inherit title={list.join(', ')}>
      {abbreviateAccessModes(list as string[])} <Text span c="dimmed" inherit>({list.join(', ')})</Text>
    </Text>
  );
}

export function pairs(map: Record<string, unknown> | undefined): ReactNode {
  const entries = Object.entries(map ?? {});
  if (entries.length === 0) return null;
  return (
    <Group gap={4}>
      {entries.map(([k, v]) => (
        <Badge key={k} variant="light" color="gray" size="sm" tt="none" fw={500}>
          {k}={String(v)}
        </Badge>
      ))}
    </Group>
  );
}

export function classLink(name: string | undefined, perms: Permissions): ReactNode {
  if (!name) return <Text span c="dimmed" inherit>none</Text>;
  return <ObjectLink kind="StorageClass" name={name} allowed={perms.can('get', 'StorageClass')} />;
}
