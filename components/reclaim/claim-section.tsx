'use client';
// The reclaim center's claims that no pod used for N days (N chosen here), selectable
// for a previewed delete; claims a pod uses are never listed. A pod deleted within the
// window still counts as a use (the server reads the history).
import { Button, Checkbox, Group, NumberInput, Paper, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { ReclaimClaim } from '@/server/services/reclaim';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
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
  const key = (c: ReclaimClaim) => `${c.namespace}/${c.name}`;
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
        <Table.ScrollContainer minWidth={700}>
          <Table data-testid="reclaim-claims" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={36}>
                  <Checkbox aria-label="Select all claims" checked={all} indeterminate={selected.length > 0 && !all} onChange={() => setPicked(all ? new Set() : new Set(claims.map(key)))} />
                </Table.Th>
                <Table.Th>Claim</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Volume</Table.Th>
                <Table.Th>Class</Table.Th>
                <Table.Th>Request</Table.Th>
                <Table.Th>Last used</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {claims.map((c) => (
                <Table.Tr key={key(c)} data-testid="reclaim-claim" data-name={key(c)}>
                  <Table.Td>
                    <Checkbox aria-label={`Select claim ${key(c)}`} checked={picked.has(key(c))} onChange={() => toggle(key(c))} />
                  </Table.Td>
                  <Table.Td>
                    <ObjectLink kind="PersistentVolumeClaim" namespace={c.namespace} name={c.name}>
                      {key(c)}
                    </ObjectLink>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge value={c.phase} />
                  </Table.Td>
                  <Table.Td>{c.volume ? <ObjectLink kind="PersistentVolume" name={c.volume} /> : ''}</Table.Td>
                  <Table.Td>{c.storageClass}</Table.Td>
                  <Table.Td><SizeText value={c.request} /></Table.Td>
                  <Table.Td>
                    <span title={c.lastUsed} data-testid="last-used">
                      {lastUsedText({ used: c.lastUseKnown, days: c.unusedDays })}
                    </span>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Paper>
  );
}
