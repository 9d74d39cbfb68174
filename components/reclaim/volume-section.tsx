'use client';
// The reclaim center's volumes: Released, Failed, and local volumes whose node is gone,
// with what each allows (or why not), selectable for the previewed actions.
import { Badge, Button, Checkbox, Group, Paper, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { VolumeAction } from '@/server/domain/reclaim';
import type { ReclaimVolume } from '../data/api-types';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { DataTable, type DataColumn } from '../table/data-table';
import type { PreviewRequest } from './preview-modal';
import { allowedCount, refusalLines, splitRefusals, VOLUME_ACTION_HELP, VOLUME_ACTION_LABELS } from './reclaim-actions';

const CATEGORY: Record<string, { text: string; color: string }> = {
  released: { text: 'Released', color: 'orange' },
  failed: { text: 'Failed', color: 'red' },
  'node-gone': { text: 'Node gone', color: 'red' },
};

const ACTIONS: VolumeAction[] = ['make-available', 'pre-bind', 'recycle', 'delete'];

export function VolumeSection({ volumes, onAction, canAct }: { volumes: ReclaimVolume[]; onAction: (r: PreviewRequest) => void; canAct: boolean }) {
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const selected = volumes.filter((v) => picked.has(v.name));
  const toggle = (name: string) =>
    setPicked((s) => {
      const next = new Set(s);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  const all = volumes.length > 0 && selected.length === volumes.length;
  // A refusal every volume shares (a developer may do none of this) is said once above the table.
  const refusals = splitRefusals(volumes.map((v) => refusalLines(v.actions, ACTIONS)));

  const start = (action: VolumeAction) => {
    const rows = selected.filter((v) => v.actions[action].allowed);
    onAction({
      title: `${VOLUME_ACTION_LABELS[action]}: ${rows.length === 1 ? rows[0].name : `${selected.length} volumes`}`,
      help: VOLUME_ACTION_HELP[action],
      targets: selected.map((v) => ({ kind: 'PersistentVolume', name: v.name, action })),
      needsClaim: action === 'pre-bind',
      danger: action === 'delete' || action === 'recycle',
    });
  };

  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="reclaim-volumes">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="reclaim-volumes">
          Volumes ({volumes.length})
        </Title>
        {canAct && (
        <Group gap="xs" role="toolbar" aria-label="Actions on the selected volumes" data-testid="volume-actions">
          {ACTIONS.map((a) => {
            const { allowed, firstRefusal } = allowedCount(selected, a);
            const prebindMany = a === 'pre-bind' && selected.length > 1;
            const disabled = allowed === 0 || prebindMany;
            return (
              <Button
                key={a}
                size="xs"
                variant={a === 'delete' ? 'light' : 'default'}
                color={a === 'delete' ? 'red' : undefined}
                disabled={disabled}
                title={selected.length === 0 ? 'Select volumes first' : prebindMany ? 'Pre-bind one volume at a time' : allowed === 0 ? firstRefusal : undefined}
                onClick={() => start(a)}
              >
                {VOLUME_ACTION_LABELS[a]}…
              </Button>
            );
          })}
        </Group>
        )}
      </Group>
      {volumes.length === 0 ? (
        <Text size="sm" c="dimmed">
          No Released or Failed volume, and no local volume on a node that is gone.
        </Text>
      ) : (
        <>
          {refusals.shared.length > 0 && (
            <Text size="sm" c="dimmed" mb="xs" data-testid="reclaim-shared-refusals">
              For every volume here: {refusals.shared.join(' · ')}
            </Text>
          )}
          <DataTable
            label="Volumes to reclaim"
            data-testid="reclaim-volumes"
            minWidth={800}
            columns={volumeColumns({ volumes, picked, all, some: selected.length > 0 && !all, setPicked, toggle, own: (v) => refusals.own[volumes.indexOf(v)] ?? [] })}
            rows={volumes}
            rowKey={(v) => v.name}
            rowProps={(v) => ({ 'data-testid': 'reclaim-volume', 'data-name': v.name })}
          />
        </>
      )}
    </Paper>
  );
}

function volumeColumns(p: {
  volumes: ReclaimVolume[];
  picked: Set<string>;
  all: boolean;
  some: boolean;
  setPicked: (s: Set<string>) => void;
  toggle: (name: string) => void;
  /** The row's refusals that not every row shares. */
  own: (v: ReclaimVolume) => string[];
}): DataColumn<ReclaimVolume>[] {
  return [
    {
      key: 'pick',
      width: '36px',
      header: (
        <Checkbox aria-label="Select all volumes" checked={p.all} indeterminate={p.some} onChange={() => p.setPicked(p.all ? new Set() : new Set(p.volumes.map((v) => v.name)))} />
      ),
      cell: (v) => <Checkbox aria-label={`Select volume ${v.name}`} checked={p.picked.has(v.name)} onChange={() => p.toggle(v.name)} />,
    },
    { key: 'name', header: 'Name', width: 'minmax(140px, 2fr)', cell: (v) => <ObjectLink kind="PersistentVolume" name={v.name} /> },
    {
      key: 'why',
      header: 'Why listed',
      cell: (v) => (
        <Group gap={4}>
          {v.categories.map((c) => (
            <Badge key={c} size="sm" variant="light" color={CATEGORY[c]?.color ?? 'gray'} tt="none" miw="max-content">
              {CATEGORY[c]?.text ?? c}
            </Badge>
          ))}
          {v.nodeProblem && (
            <Text size="xs" c="dimmed">
              {v.nodeProblem}
            </Text>
          )}
        </Group>
      ),
    },
    { key: 'status', header: 'Status', cell: (v) => <StatusBadge value={v.phase} /> },
    { key: 'policy', header: 'Policy', cell: (v) => v.reclaimPolicy },
    { key: 'class', header: 'Class', cell: (v) => v.storageClass },
    { key: 'capacity', header: 'Capacity', cell: (v) => <SizeText value={v.capacity} /> },
    { key: 'claim', header: 'Claim', cell: (v) => v.claim ?? '' },
    {
      key: 'refused',
      header: 'Not allowed',
      width: 'minmax(160px, 2fr)',
      cell: (v) => (
        <Text size="xs" c="dimmed" data-testid="reclaim-refusals">
          {p.own(v).join(' · ')}
        </Text>
      ),
    },
  ];
}
