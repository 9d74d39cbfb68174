'use client';
// Actions on the selected rows: delete, set or remove a label, and (admins, Released
// volumes only) make volumes Available again. Each asks first and reports what it left alone.
import { Alert, Button, Group, List, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo, plural } from '../format/format';
import { phaseOf, type KindUi } from '../objects/kinds';
import { useMe, usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { BulkClaimDeleteNotes, BulkDependentsNotes, useBulkClaimDeletion } from '../pods/bulk-delete-notes';
import { isKind } from '@/server/resources/of-kind';

type Action = 'delete' | 'label' | 'reclaim';

interface BulkResult {
  done: string[];
  skipped: { name: string; reason: string }[];
}

export function BulkActions({ ui, selected, onDone }: { ui: KindUi; selected: KubeObject[]; onDone: () => void }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const me = useMe();
  const [action, setAction] = useState<Action | null>(null);
  const [label, setLabel] = useState('');
  const [result, setResult] = useState<BulkResult | null>(null);
  const refs = selected.map((o) => ({ namespace: o.metadata.namespace, name: o.metadata.name ?? '' }));
  const finish = (r: BulkResult) => {
    setResult(r);
    setAction(null);
    onDone();
  };
  const del = useMutation(trpc.lists.delete.mutationOptions({ onSuccess: finish }));
  const lab = useMutation(trpc.lists.label.mutationOptions({ onSuccess: finish }));
  const rec = useMutation(trpc.lists.reclaim.mutationOptions({ onSuccess: finish }));
  const pending = del.isPending || lab.isPending || rec.isPending;
  const error = del.error ?? lab.error ?? rec.error;

  const anyNs = selected.map((o) => o.metadata.namespace);
  const mayDelete = anyNs.every((ns) => perms.can('delete', ui.kind, ns));
  const mayLabel = anyNs.every((ns) => perms.can('patch', ui.kind, ns));
  const released = selected.filter((o) => phaseOf(o) === 'Released');
  const mayReclaim = ui.kind === 'PersistentVolume' && me.role === 'admin';
  const n = plural(selected.length, ui.singular, ui.noun);
  const claims = ui.kind === 'PersistentVolumeClaim' ? selected.filter((o) => isKind(o, 'PersistentVolumeClaim')) : [];
  const claimDeletion = useBulkClaimDeletion(claims, action === 'delete' && claims.length > 0);

  // "key=value" sets, "key-" removes (as kubectl label does).
  const m = /^([^=\s]+)(?:=(\S*)|(-))$/.exec(label.trim());
  const labelArgs = m ? { key: m[1], value: m[3] ? null : (m[2] ?? '') } : null;

  return (
    <>
      {selected.length > 0 && (
      <Group gap="xs" role="toolbar" aria-label="Actions on selected rows" data-testid="bulk-actions">
        <Text size="sm" fw={500}>
          {n} selected
        </Text>
        {mayLabel && (
          <Button size="xs" variant="default" onClick={() => setAction('label')}>
            Label…
          </Button>
        )}
        {mayReclaim && (
          <Button
            size="xs"
            variant="default"
            disabled={released.length === 0 || released.length !== selected.length}
            title={released.length !== selected.length ? 'Only Released volumes can be made Available again' : undefined}
            onClick={() => setAction('reclaim')}
          >
            Make Available…
          </Button>
        )}
        {mayDelete && (
          <Button size="xs" color="red" variant="light" onClick={() => setAction('delete')}>
            Delete…
          </Button>
        )}
      </Group>
      )}
      {result && (result.skipped.length > 0 || result.done.length > 0) && (
        <Alert color={result.skipped.length ? 'orange' : 'teal'} withCloseButton onClose={() => setResult(null)} data-testid="bulk-result" title={`${result.done.length} done, ${result.skipped.length} left alone`}>
          {result.skipped.length > 0 && (
            <List size="sm">
              {result.skipped.slice(0, 10).map((s) => (
                <List.Item key={s.name}>
                  {s.name}: {s.reason}
                </List.Item>
              ))}
            </List>
          )}
        </Alert>
      )}
      <Modal opened={action !== null} onClose={() => setAction(null)} title={<Text fw={600}>{action === 'delete' ? `Delete ${n}?` : action === 'label' ? `Label ${n}` : `Make ${n} Available again?`}</Text>}>
        <Stack gap="sm">
          {action === 'delete' && (
            <Text size="sm">
              This cannot be undone. {ui.kind === 'PersistentVolume' ? 'Bound volumes are in use and are left alone.' : ''}
            </Text>
          )}
          {action === 'delete' && claims.length > 0 && (claimDeletion.loading ? (
            <Text size="sm" c="dimmed" data-testid="bulk-delete-checking">
              Checking which pods use the claims and what happens to their data…
            </Text>
          ) : (
            <>
              <BulkClaimDeleteNotes facts={claimDeletion.facts} />
              <BulkDependentsNotes text={claimDeletion.dependents} />
            </>
          ))}
          {action === 'reclaim' && (
            <Text size="sm">
              Clears each volume&apos;s claim reference, so new claims can bind it. The data on it stays as it is: the next claim sees it.
            </Text>
          )}
          {action === 'label' && (
            <TextInput
              label="Label"
              description="key=value sets the label; key- removes it"
              placeholder="tier=fast"
              value={label}
              onChange={(e) => setLabel(e.currentTarget.value)}
              error={label && !labelArgs ? 'Write key=value or key-' : undefined}
              data-autofocus
            />
          )}
          {error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(error).message}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAction(null)}>
              Cancel
            </Button>
            {action === 'delete' && (
              <Button color="red" loading={pending || claimDeletion.loading} disabled={claimDeletion.loading} onClick={() => del.mutate({ kind: ui.kind, refs })} data-testid="confirm-bulk">
                Delete
              </Button>
            )}
            {action === 'label' && (
              <Button loading={pending} disabled={!labelArgs} onClick={() => labelArgs && lab.mutate({ kind: ui.kind, refs, ...labelArgs })} data-testid="confirm-bulk">
                Apply
              </Button>
            )}
            {action === 'reclaim' && (
              <Button loading={pending} onClick={() => rec.mutate({ names: released.map((o) => o.metadata.name ?? '') })} data-testid="confirm-bulk">
                Make Available
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
