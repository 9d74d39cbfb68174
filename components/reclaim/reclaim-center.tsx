'use client';
// The reclaim center: what an admin may want back, in three sections, each action
// previewed before it is applied. The data refreshes every few seconds and after each action.
import { Alert, Center, List, Loader, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApplyResult } from '../data/api-types';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { ClaimSection } from './claim-section';
import { CleanupSection } from './cleanup-section';
import { PreviewModal, type PreviewRequest } from './preview-modal';
import { VolumeSection } from './volume-section';

export function ReclaimCenter() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const [days, setDays] = useState(30);
  const [request, setRequest] = useState<PreviewRequest | null>(null);
  const [result, setResult] = useState<ApplyResult | null>(null);
  const q = useQuery({ ...trpc.reclaim.overview.queryOptions({ unusedDays: days }), refetchInterval: 5000, staleTime: 0 });

  return (
    <Stack>
      <div>
        <Title order={1} size="h3">
          Reclaim center
        </Title>
        <Text size="sm" c="dimmed">
          Volumes and claims you may want back. Every action shows exactly what it changes first, and is never applied to anything in use.
        </Text>
      </div>
      {result && (
        <Alert
          color={result.skipped.length ? 'orange' : 'teal'}
          withCloseButton
          onClose={() => setResult(null)}
          title={`${result.done.length} done, ${result.skipped.length} left alone`}
          data-testid="reclaim-result"
        >
          {result.skipped.length > 0 && (
            <List size="sm">
              {result.skipped.slice(0, 20).map((s) => (
                <List.Item key={s.name}>
                  {s.name}: {s.reason}
                </List.Item>
              ))}
            </List>
          )}
        </Alert>
      )}
      {q.error && <Alert color="red">{errorInfo(q.error).message}</Alert>}
      {!q.data && !q.error && (
        <Center py="xl">
          <Loader role="status" aria-label="Loading" />
        </Center>
      )}
      {q.data && (
        <>
          <VolumeSection volumes={q.data.volumes} onAction={setRequest} canAct={perms.can('update', 'PersistentVolume')} />
          <ClaimSection claims={q.data.claims} days={days} onDays={setDays} onAction={setRequest} canAct={perms.can('delete', 'PersistentVolumeClaim')} usageComplete={q.data.usageComplete} />
          <CleanupSection jobs={q.data.cleanups} canRetry={perms.can('update', 'PersistentVolume')} onRetried={() => void q.refetch()} />
        </>
      )}
      <PreviewModal
        request={request}
        onClose={() => setRequest(null)}
        onApplied={(r) => {
          setResult(r);
          void q.refetch();
        }}
      />
    </Stack>
  );
}
