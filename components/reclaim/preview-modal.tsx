'use client';
// Previews an action on the chosen volumes or claims (exactly what will change, or why
// not), then applies it to those it allows, with the versions the preview was computed on:
// anything that changed meanwhile is left alone with a conflict.
import { Alert, Button, Group, List, Loader, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { PreviewRow, ReclaimTarget, ApplyResult } from '../data/api-types';
import { errorInfo, plural } from '../format/format';
import { useTRPC } from '../data/trpc';
import { claimNameError, withPreviewRefusals } from './reclaim-actions';

export interface PreviewRequest {
  title: string;
  help: string;
  targets: ReclaimTarget[];
  /** pre-bind: ask for the claim first. */
  needsClaim?: boolean;
  danger?: boolean;
}

const label = (t: { namespace?: string; name: string }) => (t.namespace ? `${t.namespace}/${t.name}` : t.name);

export function PreviewModal({ request, onClose, onApplied }: { request: PreviewRequest | null; onClose: () => void; onApplied: (r: ApplyResult) => void }) {
  const trpc = useTRPC();
  const [claim, setClaim] = useState('');
  const [rows, setRows] = useState<PreviewRow[] | null>(null);
  const preview = useMutation(trpc.reclaim.preview.mutationOptions({ onSuccess: setRows }));
  const apply = useMutation(
    trpc.reclaim.act.mutationOptions({
      onSuccess: (r) => {
        // What the preview already left alone is part of the outcome, not only what apply skipped.
        onApplied(withPreviewRefusals(r, rows ?? []));
        onClose();
      },
    }),
  );
  const { mutate: runPreview, reset: resetPreview } = preview;
  const { reset: resetApply } = apply;

  useEffect(() => {
    setRows(null);
    setClaim('');
    resetPreview();
    resetApply();
    if (request && !request.needsClaim) runPreview({ targets: request.targets });
  }, [request, runPreview, resetPreview, resetApply]);

  const claimError = request?.needsClaim && claim ? claimNameError(claim) : undefined;
  const allowed = (rows ?? []).filter((r) => r.allowed);
  const error = preview.error ?? apply.error;

  return (
    <Modal opened={request !== null} onClose={onClose} size="lg" closeButtonProps={{ 'aria-label': 'Close' }} title={<Text fw={600}>{request?.title}</Text>}>
      {request && (
        <Stack gap="sm" data-testid="reclaim-preview">
          <Text size="sm">{request.help}</Text>
          {request.needsClaim && (
            <Group align="flex-end" wrap="nowrap">
              <TextInput
                label="Claim"
                description="namespace/name of a Pending claim"
                placeholder="default/data"
                value={claim}
                onChange={(e) => {
                  setClaim(e.currentTarget.value);
                  setRows(null);
                }}
                error={claimError}
                style={{ flex: 1 }}
                data-autofocus
              />
              <Button
                variant="default"
                disabled={!!claimNameError(claim)}
                loading={preview.isPending}
                onClick={() => runPreview({ targets: request.targets.map((t) => ({ ...t, claim: claim.trim() })) })}
              >
                Preview
              </Button>
            </Group>
          )}
          {preview.isPending && <Loader size="sm" role="status" aria-label="Computing the preview" />}
          {rows && (
            <Stack gap="xs" data-testid="preview-rows">
              {rows.map((r) => (
                <Alert
                  key={label(r)}
                  color={r.allowed ? 'blue' : 'orange'}
                  variant="light"
                  title={
                    <Group gap="xs">
                      <Text fw={600} size="sm">
                        {label(r)}
                      </Text>
                      <Text size="xs" fw={700} tt="uppercase">
                        {r.allowed ? 'will change' : 'left alone'}
                      </Text>
                    </Group>
                  }
                  data-testid="preview-row"
                  data-name={label(r)}
                >
                  {r.allowed ? (
                    <List size="sm">
                      {r.changes.map((c) => (
                        <List.Item key={c}>{c}</List.Item>
                      ))}
                    </List>
                  ) : (
                    <Text size="sm">{r.reason}</Text>
                  )}
                </Alert>
              ))}
            </Stack>
          )}
          {error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(error).message}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button
              color={request.danger ? 'red' : undefined}
              disabled={!rows || allowed.length === 0}
              loading={apply.isPending}
              onClick={() => apply.mutate({ items: allowed.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name, action: r.action, claim: r.claim, resourceVersion: r.resourceVersion })) })}
              data-testid="confirm-reclaim"
            >
              {rows ? `Apply to ${plural(allowed.length, 'object', 'objects')}` : 'Apply'}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
