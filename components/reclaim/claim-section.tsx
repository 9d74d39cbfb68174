'use client';
// The reclaim center's claims that no pod used for N days (N chosen here), selectable
// for a previewed delete; claims a pod uses are never listed. A pod deleted within the
// window still counts as a use (the server reads the history).
import { Button, Checkbox, Group, NumberInput, Paper, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ReclaimClaim } from '../data/api-types';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { DataTable, type DataColumn } from '../table/data-table';
import type { PreviewRequest } from './preview-modal';
import { allowedCount, lastUsedText } from './reclaim-actions';

export function ClaimSection({
  claims,
  days,
  onDays,
  onAction,
  canAct,
  usageComplete = true,
}: {
  canAct: boolean;
  usageComplete?: boolean;
  claims: ReclaimClaim[];
  days: number;
  onDays: (d: number) => void;
  onAction: (r: PreviewRequest) => void;
}) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const selected = claims.filter((c) => picked.has(key(c)));
  const all = claims.length > 0 && selected.length === claims.length;
  const { allowed, firstRefusal } = allowedCount(selected, 'delete');
  const toggle = (k: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });

  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="reclaim-claims">
      <Group justify="space-between" mb="xs" align="flex-end">
        <Title order={2} size="h4" id="reclaim-claims">
          Claims unused for {days} days or more ({claims.length})
        </Title>
        <Group gap="xs" align="flex-end">
          <NumberInput
            label="Unused for at least (days)"
            size="xs"
            w={180}
            min={0}
            max={3650}
            value={days}
            onChange={(v) => onDays(typeof v === 'number' && Number.isFinite(v) ? Math.min(3650, Math.max(0, Math.floor(v))) : 0)}
            data-testid="unused-days"
          />
          {canAct && (
          <Button
            size="xs"
            color="red"
            variant="light"
            disabled={allowed === 0}
            title={selected.length === 0 ? 'Select claims first' : allowed === 0 ? firstRefusal : undefined}
            onClick={() =>
              onAction({
                title: `Delete ${selected.length === 1 ? key(selected[0]) : `${selected.length} claims`}`,
                help: 'Deletes the claims. A bound claim releases its volume, whose reclaim policy then applies.',
                targets: selected.map((c) => ({ kind: 'PersistentVolumeClaim', namespace: c.namespace, name: c.name, action: 'delete' })),
                danger: true,
              })
            }
          >
            Delete…
          </Button>
          )}
        </Group>
      </Group>
      <Text size="xs" c="dimmed" mb="xs">
        No running pod uses these claims, and none has for the chosen number of days: pods still in the store and, through the
        history, pods deleted since count as uses.
      </Text>
      {!usageComplete && (
        <Text size="xs" c="orange.9" mb="xs" role="status">
          Too many pod changes in the window to search them all: no claim is listed as unused until a shorter window is chosen.
        </Text>
      )}
      {claims.length === 0 ? (
        <Text size="sm" c="dimmed">
          No claim has gone unused that long.
        </Text>
      ) : (
        <DataTable
          label="Unused claims"
          data-testid="reclaim-claims"
          minWidth={700}
          columns={claimColumns({ claims, picked, all, some: selected.length > 0 && !all, setPicked, toggle })}
          rows={claims}
          rowKey={key}
          rowProps={(c) => ({ 'data-testid': 'reclaim-claim', 'data-name': key(c) })}
        />
      )}
    </Paper>
  );
}

const key = (c: ReclaimClaim) => `${c.namespace}/${c.name}`;

function claimColumns(p: {
  claims: ReclaimClaim[];
  picked: Set<string>;
  all: boolean;
  some: boolean;
  setPicked: (s: Set<string>) => void;
  toggle: (k: string) => void;
}): DataColumn<ReclaimClaim>[] {
  return [
    {
      key: 'pick',
      width: '36px',
      header: <Checkbox aria-label="Select all claims" checked={p.all} indeterminate={p.some} onChange={() => p.setPicked(p.all ? new Set() : new Set(p.claims.map(key)))} />,
      cell: (c) => <Checkbox aria-label={`Select claim ${key(c)}`} checked={p.picked.has(key(c))} onChange={() => p.toggle(key(c))} />,
    },
    {
      key: 'claim',
      header: 'Claim',
      width: 'minmax(140px, 2fr)',
      cell: (c) => (
        <ObjectLink kind="PersistentVolumeClaim" namespace={c.namespace} name={c.name}>
          {key(c)}
        </ObjectLink>
      ),
    },
    { key: 'status', header: 'Status', cell: (c) => <StatusBadge value={c.phase} /> },
    { key: 'volume', header: 'Volume', width: 'minmax(120px, 1.5fr)', cell: (c) => (c.volume ? <ObjectLink kind="PersistentVolume" name={c.volume} /> : '') },
    { key: 'class', header: 'Class', cell: (c) => c.storageClass },
    { key: 'request', header: 'Request', cell: (c) => <SizeText value={c.request} /> },
    {
      key: 'last-used',
      header: 'Last used',
      cell: (c) => (
        <span title={c.lastUsed} data-testid="last-used">
          {lastUsedText({ used: c.lastUseKnown, days: c.unusedDays })}
        </span>
      ),
    },
  ];
}
