'use client';
// The important fields of each kind, for its detail page.
import { VolumeUsed } from '../volumes/used-cell';
import { Anchor, Badge, Code, Group, Stack, Text } from '@mantine/core';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { abbreviateAccessModes } from '@/server/domain/access-modes';
import type { KubeObject } from '@/server/resources/types';
import { ageOf } from '../format/format';
import { exactSize, formatSize, isSizeResource } from '../format/size';
import { SizeText } from '../format/size-text';
import { isDefaultClass, kindUi } from './kinds';
import { remainingOf, type NamespaceCondition } from '@/server/domain/namespace-lifecycle';
import { strategyForResource } from '@/server/resources/registry';
import type { Namespace } from '@/server/resources/namespace/schema';
import { isKind } from '@/server/resources/of-kind';
import { ObjectLink } from './object-link';
import type { Permissions } from '../session/session';
import { StatusBadge } from './status-badge';
import { QuotaBars } from '../quotas/quota-bars';
import { quotaLimits } from '../quotas/quota-usage';
import { snapshotSummary } from '../snapshots/snapshot-summary';

export interface SummaryItem {
  label: string;
  value: ReactNode;
}

function modes(list: unknown): ReactNode {
  if (!Array.isArray(list) || list.length === 0) return null;
  return (
    <Text span inherit title={list.join(', ')}>
      {abbreviateAccessModes(list as string[])} <Text span c="dimmed" inherit>({list.join(', ')})</Text>
    </Text>
  );
}

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

function pairs(map: Record<string, unknown> | undefined): ReactNode {
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

function classLink(name: string | undefined, perms: Permissions): ReactNode {
  if (!name) return <Text span c="dimmed" inherit>none</Text>;
  return <ObjectLink kind="StorageClass" name={name} allowed={perms.can('get', 'StorageClass')} />;
}

export function summaryOf(obj: KubeObject, perms: Permissions, now: number): SummaryItem[] {
  const items: (SummaryItem | false)[] = [];
  switch (obj.kind) {
    case 'PersistentVolume': {
      if (!isKind(obj, 'PersistentVolume')) break;
      const spec = obj.spec ?? {};
      const status = obj.status ?? {};
      const claim = spec.claimRef;
      items.push(
        { label: 'Status', value: <StatusBadge value={obj.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? '')} /> },
        Boolean(status.reason || status.message) && { label: 'Reason', value: [status.reason, status.message].filter(Boolean).join(': ') },
        { label: 'Capacity', value: <SizeText value={spec.capacity?.storage} /> },
        { label: 'Used', value: <VolumeUsed pv={obj} /> },
        { label: 'Access modes', value: modes(spec.accessModes) },
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
            <Text span c="dimmed" inherit>
              none
            </Text>
          ),
        },
        Boolean(spec.mountOptions?.length) && { label: 'Mount options', value: spec.mountOptions!.join(', ') },
      );
      break;
    }
    case 'PersistentVolumeClaim': {
      if (!isKind(obj, 'PersistentVolumeClaim')) break;
      const spec = obj.spec ?? {};
      const status = obj.status ?? {};
      items.push(
        { label: 'Status', value: <StatusBadge value={obj.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? '')} /> },
        {
          label: 'Volume',
          value: spec.volumeName ? (
            <ObjectLink kind="PersistentVolume" name={spec.volumeName} allowed={perms.can('get', 'PersistentVolume')} />
          ) : (
            <Text span c="dimmed" inherit>
              not bound yet
            </Text>
          ),
        },
        { label: 'Requested', value: <SizeText value={spec.resources?.requests?.storage} /> },
        { label: 'Capacity', value: <SizeText value={status.capacity?.storage} /> },
        { label: 'Access modes', value: modes(spec.accessModes) },
        { label: 'Storage class', value: classLink(spec.storageClassName, perms) },
        { label: 'Volume mode', value: spec.volumeMode ?? 'Filesystem' },
        Boolean(spec.selector) && { label: 'Selector', value: <Code>{JSON.stringify(spec.selector)}</Code> },
        Boolean(spec.dataSource?.name) && { label: 'Made from', value: <ObjectLink kind={spec.dataSource!.kind ?? ''} namespace={obj.metadata.namespace} name={spec.dataSource!.name!}>{`${spec.dataSource!.kind} ${spec.dataSource!.name}`}</ObjectLink> },
      );
      break;
    }
    case 'VolumeSnapshot':
    case 'SnapshotSchedule':
      items.push(...snapshotSummary(obj, now));
      break;
    case 'Pod': {
      if (!isKind(obj, 'Pod')) break;
      const spec = obj.spec ?? {};
      const status = obj.status ?? {};
      items.push(
        { label: 'Status', value: <StatusBadge value={obj.metadata.deletionTimestamp ? 'Terminating' : (status.reason || status.phase || 'Pending')} /> },
        {
          label: 'Node',
          value: spec.nodeName ? (
            <ObjectLink kind="Node" name={spec.nodeName} allowed={perms.can('get', 'Node')} />
          ) : (
            <Text span c="dimmed" inherit>
              not placed yet
            </Text>
          ),
        },
        { label: 'Containers', value: (spec.containers ?? []).map((c) => `${c?.name} (${c?.image ?? 'no image'})`).join(', ') },
        { label: 'Node selector', value: pairs(spec.nodeSelector) },
      );
      break;
    }
    case 'StorageClass': {
      if (!isKind(obj, 'StorageClass')) break;
      items.push(
        { label: 'Default class', value: isDefaultClass(obj) ? <Badge size="sm" color="indigo" variant="light">default</Badge> : 'no' },
        { label: 'Provisioner', value: <Code>{obj.provisioner ?? ''}</Code> },
        { label: 'Reclaim policy', value: obj.reclaimPolicy ?? 'Delete' },
        { label: 'Binding mode', value: obj.volumeBindingMode ?? 'Immediate' },
        { label: 'Volume expansion', value: obj.allowVolumeExpansion ? 'allowed' : 'not allowed' },
        Boolean(obj.mountOptions?.length) && { label: 'Mount options', value: obj.mountOptions!.join(', ') },
        Boolean(obj.allowedTopologies?.length) && {
          label: 'Allowed topologies',
          value: obj.allowedTopologies!
            .map((t) => (t.matchLabelExpressions ?? []).map((e) => `${e.key} in [${(e.values ?? []).join(', ')}]`).join(' and '))
            .join(' or '),
        },
      );
      break;
    }
    case 'Node': {
      if (!isKind(obj, 'Node')) break;
      const spec = obj.spec ?? {};
      const status = obj.status ?? {};
      const ready = (status.conditions ?? []).find((c) => c.type === 'Ready');
      items.push(
        { label: 'Status', value: <StatusBadge value={ready ? (ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown') : 'Unknown'} /> },
        Boolean(ready?.message) && { label: 'Condition', value: ready!.message },
        { label: 'Addresses', value: (status.addresses ?? []).map((a) => `${a.type}: ${a.address}`).join(', ') },
        Boolean(status.capacity) && { label: 'Capacity', value: resources(status.capacity) },
        Boolean(status.nodeInfo?.kubeletVersion) && { label: 'Version', value: String(status.nodeInfo!.kubeletVersion) },
        Boolean(status.nodeInfo?.osImage) && { label: 'OS', value: `${String(status.nodeInfo!.osImage)} ${String(status.nodeInfo!.kernelVersion ?? '')}` },
        Boolean(spec.unschedulable) && { label: 'Scheduling', value: 'disabled' },
      );
      break;
    }
    case 'Namespace': {
      if (!isKind(obj, 'Namespace')) break;
      const status = obj.status ?? {};
      const ns = encodeURIComponent(obj.metadata.name ?? '');
      items.push(
        { label: 'Status', value: <StatusBadge value={obj.metadata.deletionTimestamp ? 'Terminating' : (status.phase ?? 'Active')} /> },
        {
          label: 'In this namespace',
          value: (
            <Group gap="md">
              {perms.can('list', 'PersistentVolumeClaim', obj.metadata.name) && (
                <Anchor component={Link} href={`/claims?namespace=${ns}`} inherit>
                  Claims
                </Anchor>
              )}
              {perms.can('list', 'Event', obj.metadata.name) && (
                <Anchor component={Link} href={`/events?namespace=${ns}`} inherit>
                  Events
                </Anchor>
              )}
            </Group>
          ),
        },
        ...terminatingItems(obj, now),
      );
      break;
    }
    case 'Event': {
      if (!isKind(obj, 'Event')) break;
      const io = obj.involvedObject ?? {};
      items.push(
        { label: 'Type', value: <StatusBadge value={obj.type ?? ''} /> },
        { label: 'Reason', value: obj.reason ?? '' },
        { label: 'Message', value: obj.message ?? '' },
        {
          label: 'Object',
          value: io.name ? (
            <ObjectLink kind={io.kind ?? ''} namespace={io.namespace} name={io.name} allowed={perms.can('get', io.kind ?? '', io.namespace)}>
              {`${io.kind}/${io.namespace ? `${io.namespace}/` : ''}${io.name}`}
            </ObjectLink>
          ) : (
            ''
          ),
        },
        { label: 'Count', value: String(obj.series?.count ?? obj.count ?? 1) },
        { label: 'First seen', value: ageOf(obj.firstTimestamp ?? obj.eventTime, now) + ' ago' },
        { label: 'Last seen', value: ageOf(obj.lastTimestamp ?? obj.series?.lastObservedTime ?? obj.eventTime, now) + ' ago' },
        { label: 'Source', value: [obj.source?.component ?? obj.reportingComponent, obj.source?.host].filter(Boolean).join(', ') },
      );
      break;
    }
    case 'ResourceQuota': {
      if (!isKind(obj, 'ResourceQuota')) break;
      const spec = obj.spec ?? {};
      const selector = spec.scopeSelector?.matchExpressions ?? [];
      items.push(
        { label: 'Used of limit', value: <QuotaBars limits={quotaLimits(obj)} /> },
        Boolean(spec.scopes?.length) && { label: 'Scopes', value: spec.scopes!.join(', ') },
        selector.length > 0 && {
          label: 'Scope selector',
          value: selector.map((e) => `${e.scopeName} ${e.operator}${e.values?.length ? ` [${e.values.join(', ')}]` : ''}`).join(' and '),
        },
        !obj.status?.used && { label: 'Counted', value: <Text span c="dimmed" inherit>not yet: the quota controller has not counted usage</Text> },
      );
      break;
    }
  }
  return items.filter((i): i is SummaryItem => Boolean(i));
}

export function metadataOf(obj: KubeObject, now: number): SummaryItem[] {
  const m = obj.metadata ?? {};
  const items: (SummaryItem | false)[] = [
    Boolean(m.namespace) && {
      label: 'Namespace',
      value: <ObjectLink kind="Namespace" name={m.namespace!} />,
    },
    {
      label: 'Created',
      value: m.creationTimestamp ? (
        <Text span inherit title={m.creationTimestamp}>
          {ageOf(m.creationTimestamp, now)} ago <Text span c="dimmed" inherit fz="xs">({new Date(m.creationTimestamp).toLocaleString()})</Text>
        </Text>
      ) : (
        ''
      ),
    },
    { label: 'Labels', value: pairs(m.labels) ?? <Text span c="dimmed" inherit>none</Text> },
    Boolean(Object.keys(m.annotations ?? {}).length) && { label: 'Annotations', value: pairs(m.annotations) },
    Boolean(m.finalizers?.length) && {
      label: 'Finalizers',
      value: (
        <Stack gap={2} data-testid="finalizers">
          {m.finalizers!.map((f) => (
            <Text key={f} span inherit style={{ overflowWrap: 'anywhere' }}>
              {f}
            </Text>
          ))}
        </Stack>
      ),
    },
    { label: 'UID', value: <Code>{m.uid ?? ''}</Code> },
    { label: 'Resource version', value: <Code data-testid="resource-version">{m.resourceVersion ?? ''}</Code> },
  ];
  return items.filter((i): i is SummaryItem => Boolean(i));
}
