'use client';
// What a list cell shows: the name links to the object's page (a default class marked),
// status as a badge, references as links, sizes readable (the cell's tooltip keeps the
// exact quantity), anything else as text.
import { Anchor, Badge, Group, Text } from '@mantine/core';
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { PendingStatus } from '../claims/pending-hint';
import { formatQuotaCell, formatSize } from '../format/size';
import { QuotaCell } from '../quotas/quota-bars';
import { isLimitsResource, quotaLimits } from '../quotas/quota-usage';
import { detailHref, isDefaultClass, kindUi, type KindUi } from '../objects/kinds';
import { isKind } from '@/server/resources/of-kind';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { usePermissions } from '../session/session';
import type { ListColumn } from './table-model';

/** The column that links to the object's page: NAME, or for events REASON. */
export function linkColumn(columns: ListColumn[]): number {
  for (const h of ['NAME', 'REASON']) {
    const i = columns.findIndex((c) => c.header === h);
    if (i !== -1) return i;
  }
  return 0;
}

export function Cell({ ui, header, text, obj, isLink }: { ui: KindUi; header: string; text: string; obj: KubeObject; isLink: boolean }) {
  const perms = usePermissions();
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  if (isLink) {
    const href = detailHref(ui.kind, ns, name);
    const shown = ui.kind === 'StorageClass' ? text.replace(/ \(default\)$/, '') : text;
    const content: ReactNode = (
      <Anchor component={Link} href={href ?? '#'} prefetch={false} fw={500} fz="sm" data-testid="object-name">
        {shown}
      </Anchor>
    );
    if (ui.kind === 'StorageClass' && isDefaultClass(obj)) {
      return (
        <Group gap={6} wrap="nowrap">
          {content}
          <Badge size="xs" variant="outline" color="indigo.8" tt="none" miw="max-content" data-testid="default-class">
            (default)
          </Badge>
        </Group>
      );
    }
    return content;
  }
  if (!text) return null;
  if (header === ui.statusColumn) {
    return ui.kind === 'PersistentVolumeClaim' && isKind(obj, 'PersistentVolumeClaim') ? <PendingStatus claim={obj} text={text} /> : <StatusBadge value={text} fixed />;
  }
  // Sizes read as sizes; the cell's tooltip keeps the exact quantity.
  switch (header) {
    case 'CAPACITY':
    case 'SIZE':
      return <>{formatSize(text)}</>;
    case 'REQUEST':
    case 'LIMIT':
      if (isKind(obj, 'ResourceQuota')) {
        const limits = quotaLimits(obj).filter((l) => isLimitsResource(l.resource) === (header === 'LIMIT'));
        return <QuotaCell limits={limits} />;
      }
      return <>{ui.kind === 'ResourceQuota' ? formatQuotaCell(text) : text}</>;
    case 'NAMESPACE':
      return <ObjectLink kind="Namespace" name={text} allowed={perms.can('get', 'Namespace', text)} />;
    case 'CLAIM': {
      const [cns, cname] = text.split('/');
      return <ObjectLink kind="PersistentVolumeClaim" namespace={cns} name={cname ?? ''} allowed={perms.can('get', 'PersistentVolumeClaim', cns)}>{text}</ObjectLink>;
    }
    case 'VOLUME':
      return <ObjectLink kind="PersistentVolume" name={text} allowed={perms.can('get', 'PersistentVolume')} />;
    case 'STORAGECLASS':
      return <ObjectLink kind="StorageClass" name={text} allowed={perms.can('get', 'StorageClass')} />;
    case 'OBJECT': {
      const io = (isKind(obj, 'Event') ? obj.involvedObject : undefined) ?? {};
      const target = kindUi(io.kind ?? '');
      // `kind/name` breaks after the slash when it must, not inside a word.
      const slash = text.indexOf('/');
      const shown = slash < 0 ? text : <>{text.slice(0, slash + 1)}<wbr />{text.slice(slash + 1)}</>;
      if (!target) return <Text span fz="sm">{shown}</Text>;
      return (
        <ObjectLink kind={target.kind} namespace={io.namespace} name={io.name ?? ''} allowed={perms.can('get', target.kind, io.namespace)}>
          {shown}
        </ObjectLink>
      );
    }
    default:
      return <>{text}</>;
  }
}
