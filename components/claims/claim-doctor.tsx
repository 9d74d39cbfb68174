'use client';
// The claim doctor, under "Why is this claim Pending?": the fixes that apply to this claim
// for this user (server/domain/claim-fixes.ts): create a matching volume (the volume form,
// prefilled), switch to a class that can provision it (or re-create the claim with it when
// its class is already set), pre-bind it to an Available volume. Each is previewed first;
// applying sends the resourceVersion of the preview, so a claim that changed is left alone.
// A refused fix says why.
import { Alert, Button, Code, Group, List, Modal, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { stringify } from 'yaml';
import type { Fix } from '@/server/domain/claim-fixes';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { errorInfo } from '../format/format';
import { useTRPC } from '../data/trpc';
import { volumeFormHref } from '../volumes/volume-draft';

function labelOf(f: Fix): string {
  switch (f.kind) {
    case 'create-volume':
      return 'Create a matching volume';
    case 'switch-class':
      return `Switch to class ${f.target}`;
    case 'recreate-with-class':
      return `Re-create with class ${f.target}`;
    case 'pre-bind':
      return `Pre-bind to volume ${f.target}`;
  }
}

export function ClaimDoctor({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const pending = !claim.metadata.deletionTimestamp && (claim.status?.phase ?? 'Pending') === 'Pending';
  const doctor = useQuery({ ...trpc.claims.doctor.queryOptions({ namespace: ns, name }), enabled: pending });
  const [open, setOpen] = useState<Fix | undefined>();
  if (!pending || !doctor.data || doctor.data.fixes.length === 0) return null;
  const { fixes, prefill } = doctor.data;
  return (
    <Paper withBorder p="md" component="section" aria-label="Fixes" data-testid="claim-doctor">
      <Text fw={600} size="sm" mb="xs">
        Fixes
      </Text>
      <Stack gap="xs">
        {fixes.map((f) => {
          const key = `${f.kind}:${f.target ?? ''}`;
          const label = labelOf(f);
          return (
            <Group key={key} gap="sm" wrap="nowrap" data-testid="claim-fix" data-kind={f.kind} data-target={f.target ?? ''} data-allowed={String(f.allowed)}>
              {f.kind === 'create-volume' && f.allowed && prefill ? (
                <Button
                  component={Link}
                  href={volumeFormHref({ ...prefill, name: `${name}-pv`.slice(0, 253), claim: `${ns}/${name}` })}
                  size="xs"
                  variant="light"
                  data-testid="fix-create-volume"
                >
                  {label}
                </Button>
              ) : (
                <Button size="xs" variant="light" disabled={!f.allowed} onClick={() => setOpen(f)} data-testid={`fix-${f.kind}`}>
                  {label}
                </Button>
              )}
              <Text size="xs" c="dimmed">
                {f.allowed ? f.changes[0] : `Not available: ${f.reason}`}
              </Text>
            </Group>
          );
        })}
      </Stack>
      {open && <FixDialog claim={claim} fix={open} onClose={() => setOpen(undefined)} />}
    </Paper>
  );
}

function FixDialog({ claim, fix, onClose }: { claim: PersistentVolumeClaim; fix: Fix; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const ref = { namespace: ns, name, kind: fix.kind, target: fix.target };
  const preview = useQuery({ ...trpc.claims.fixPreview.queryOptions(ref), staleTime: Infinity, gcTime: 0 });
  // A 409: the claim changed since this preview. Applying it again would resend the same
  // stale version, so the preview is made again and the user reviews it first.
  const [reloaded, setReloaded] = useState(false);
  const apply = useMutation(
    trpc.claims.fixApply.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        onClose();
      },
      onError: (err) => {
        if (errorInfo(err).code !== 'CONFLICT') return;
        setReloaded(true);
        void preview.refetch().then(() => apply.reset());
      },
    }),
  );
  const p = preview.isFetching ? undefined : preview.data;
  return (
    <Modal opened onClose={onClose} title={labelOf(fix)} size="lg">
      <Stack gap="sm" data-testid="fix-preview">
        {(preview.isPending || preview.isFetching) && <Text size="sm">Checking…</Text>}
        {reloaded && p && (
          <Alert color="blue" title="Preview reloaded" data-testid="fix-reloaded">
            The claim changed since the preview; this is what the fix does now. Review it and apply again.
          </Alert>
        )}
        {preview.isError && <Alert color="red">{errorInfo(preview.error).message}</Alert>}
        {p && !p.allowed && (
          <Alert color="orange" title="Not possible" data-testid="fix-refused">
            {p.reason}
          </Alert>
        )}
        {p && p.allowed && (
          <>
            <Text size="sm">This will:</Text>
            <List size="sm" data-testid="fix-changes">
              {p.changes.map((c) => (
                <List.Item key={c}>{c}</List.Item>
              ))}
            </List>
            {p.claim && (
              <>
                <Text size="sm">The new claim:</Text>
                <Code block data-testid="fix-new-claim">
                  {stringify(p.claim)}
                </Code>
              </>
            )}
          </>
        )}
        {apply.error && (
          <Alert color="red" title="Not applied" role="alert" data-testid="fix-error">
            {errorInfo(apply.error).message}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color={fix.kind === 'recreate-with-class' ? 'red' : undefined}
            disabled={!p?.allowed}
            loading={apply.isPending}
            onClick={() => p && apply.mutate({ ...ref, resourceVersion: p.resourceVersion })}
            data-testid="fix-apply"
          >
            {fix.kind === 'recreate-with-class' ? 'Delete and re-create' : 'Apply'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
