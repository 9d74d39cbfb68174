'use client';
// The reclaim center's volumes: Released, Failed, and local volumes whose node is gone,
// with what each allows (or why not), selectable for the previewed actions.
import { Badge, Button, Checkbox, Group, Paper, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { VolumeAction } from '@/server/domain/reclaim';
import type { ReclaimVolume } from '@/server/services/reclaim';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import type { PreviewRequest } from './preview-modal';
import { allowedCount, VOLUME_ACTION_HELP, VOLUME_ACTION_LABELS } from './reclaim-actions';

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
        <Table.ScrollContainer minWidth={800}>
          <Table data-testid="reclaim-volumes" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={36}>
                  <Checkbox
                    aria-label="Select all volumes"
                    checked={all}
                    indeterminate={selected.length > 0 && !all}
                    onChange={() => setPicked(all ? new Set() : new Set(volumes.map((v) => v.name)))}
                  />
                </Table.Th>
                <Table.Th>Name</Table.Th>
                <Table.Th>Why listed</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Policy</Table.Th>
                <Table.Th>Class</Table.Th>
                <Table.Th>Capacity</Table.Th>
                <Table.Th>Claim</Table.Th>
                <Table.Th>Not allowed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {volumes.map((v) => {
                const refusals = ACTIONS.filter((a) => !v.actions[a].allowed);
                return (
                  <Table.Tr key={v.name} data-testid="reclaim-volume" data-name={v.name}>
                    <Table.Td>
                      <Checkbox aria-label={`Select volume ${v.name}`} checked={picked.has(v.name)} onChange={() => toggle(v.name)} />
                    </Table.Td>
                    <Table.Td>
                      <ObjectLink kind="PersistentVolume" name={v.name} />
                    </Table.Td>
                    <Table.Td>
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
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge value={v.phase} />
                    </Table.Td>
                    <Table.Td>{v.reclaimPolicy}</Table.Td>
                    <Table.Td>{v.storageClass}</Table.Td>
                    <Table.Td><SizeText value={v.capacity} /></Table.Td>
                    <Table.Td>{v.claim ?? ''}</Table.Td>
                    <Table.Td>
                      <Text size="xs" c="dimmed">
                        {refusals.length === ACTIONS.length
                          ? `none allowed: ${v.actions.delete.reason}`
                          : refusals.map((a) => `${VOLUME_ACTION_LABELS[a]}: ${v.actions[a].reason}`).join(' · ')}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
