'use client';
// A volume's page: what its storage is (source, path or server or driver, the nodes it is
// pinned to, who made it, what happens when its claim goes), and, for a Released or
// Failed volume, why, where nobody can miss it. Its lifecycle events are in the Events tab.
import { Alert, Badge, Code, DataList, Group, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { ObjectLink } from '../objects/object-link';
import { usePermissions } from '../session/session';
import { nodePinningOf, volumeAssetOf } from './volume-asset';
import { annDynamicallyProvisioned } from '@/server/domain/well-known/annotations';
import { StatusBadge } from '../objects/status-badge';
import { volumeHeadline } from './volume-headline';

const RECLAIM_WORDS: Record<string, string> = {
  Retain: 'When its claim is deleted the volume is kept, with its data, until an administrator reclaims it.',
  Delete: 'When its claim is deleted the storage and the volume are deleted.',
  Recycle: 'When its claim is deleted its data is scrubbed and it becomes Available again (deprecated).',
};

/** The volume's phase in one line at the top of its page; Released and Failed get the alert below instead. */
export function VolumeStatusLine({ pv }: { pv: PersistentVolume }) {
  const h = volumeHeadline(pv);
  if (!pv.metadata.deletionTimestamp && (h.phase === 'Released' || h.phase === 'Failed')) return <VolumePhaseAlert pv={pv} />;
  return (
    <Group gap="xs" wrap="nowrap" data-testid="volume-status-line" data-phase={h.phase}>
      <StatusBadge value={h.phase} />
      <Text size="sm">{h.text}</Text>
    </Group>
  );
}

export function VolumePhaseAlert({ pv }: { pv: PersistentVolume }) {
  const phase = pv.status?.phase;
  if (pv.metadata.deletionTimestamp || (phase !== 'Released' && phase !== 'Failed')) return null;
  const claim = pv.spec?.claimRef;
  const policy: string = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
  const detail = [pv.status?.reason, pv.status?.message].filter(Boolean).join(': ');
  const context =
    phase === 'Released'
      ? `Its claim${claim?.name ? ` ${claim.namespace}/${claim.name}` : ''} was deleted. Reclaim policy ${policy}: ${
          policy === 'Delete' ? 'the deleter is removing the storage and then the volume.' : 'the volume and its data are kept, and it is not bound again automatically.'
        }`
      : detail
        ? ''
        : 'Reclaiming it went wrong, and nothing says why yet; see its events.';
  return (
    <Alert
      color={phase === 'Failed' ? 'red' : 'orange'}
      variant="light"
      title={phase === 'Failed' ? 'This volume Failed' : 'This volume is Released'}
      data-testid="volume-phase-alert"
      data-phase={phase}
    >
      {detail && (
        <Text size="sm" fw={600} data-testid="volume-phase-reason">
          {detail}
        </Text>
      )}
      {context && (
        <Text size="sm" data-testid="volume-phase-message">
          {context}
        </Text>
      )}
    </Alert>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <DataList.Item data-label={label}>
      <DataList.ItemLabel c="dimmed">{label}</DataList.ItemLabel>
      <DataList.ItemValue>{children}</DataList.ItemValue>
    </DataList.Item>
  );
}

export function VolumeAssetPanel({ pv }: { pv: PersistentVolume }) {
  const perms = usePermissions();
  const asset = volumeAssetOf(pv);
  const pinning = nodePinningOf(pv);
  const provisionedBy = pv.metadata.annotations?.[annDynamicallyProvisioned];
  const policy: string = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
  return (
    <Paper withBorder p="md" data-testid="volume-asset" data-source={asset.type}>
      <Text fw={600} size="sm" mb="xs">
        Storage
      </Text>
      <DataList size="sm" gap={6} labelWidth={140}>
        <Row label="Source">
          {asset.type ? (
            <Badge size="sm" variant="outline" color="gray" tt="none">
              {asset.type}
            </Badge>
          ) : (
            <Text span c="dimmed" inherit>
              none given
            </Text>
          )}
        </Row>
        {asset.fields.map((f) => (
          <Row key={f.label} label={f.label}>
            <Code data-testid="asset-field" data-label={f.label}>
              {f.value}
            </Code>
          </Row>
        ))}
        <Row label="Nodes">
          {!pinning ? (
            <Text span inherit c="dimmed">
              any node (no node affinity)
            </Text>
          ) : (
            <Group gap={6} data-testid="pinned-nodes">
              {pinning.nodes.map((n) => (
                <ObjectLink key={n} kind="Node" name={n} allowed={perms.can('get', 'Node')} />
              ))}
              {pinning.other.map((o) => (
                <Code key={o}>{o}</Code>
              ))}
            </Group>
          )}
        </Row>
        <Row label="Provisioned by">
          {provisionedBy ? (
            <Code data-testid="provisioned-by">{provisionedBy}</Code>
          ) : (
            <Text span inherit c="dimmed">
              made by hand (no {annDynamicallyProvisioned})
            </Text>
          )}
        </Row>
        <Row label="Reclaim policy">
          <Text span inherit>
            <Text span inherit fw={600} data-testid="reclaim-policy">
              {policy}
            </Text>{' '}
            <Text span inherit c="dimmed">
              {RECLAIM_WORDS[policy] ?? ''}
            </Text>
          </Text>
        </Row>
      </DataList>
    </Paper>
  );
}
