'use client';
// The reclaim center's failed and quarantined local-volume cleanups, with the existing retry.
import { Alert, Badge, Button, Paper, Text, Title, VisuallyHidden } from '@mantine/core';
import type { ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { JobView } from '../data/api-types';
import { errorInfo } from '../format/format';
import { ObjectLink } from '../objects/object-link';
import { useTRPC } from '../data/trpc';
import { DataTable, type DataColumn } from '../table/data-table';

export function CleanupSection({ jobs, canRetry, onRetried }: { jobs: JobView[]; canRetry: boolean; onRetried: () => void }) {
  const trpc = useTRPC();
  const retry = useMutation(trpc.reclaim.retryCleanup.mutationOptions({ onSuccess: onRetried }));
  return (
    <Paper withBorder p="sm" component="section" aria-labelledby="reclaim-cleanups">
      <Title order={2} size="h4" id="reclaim-cleanups" mb="xs">
        Failed cleanups ({jobs.length})
      </Title>
      {retry.error && (
        <Alert color="red" mb="xs" role="alert">
          {errorInfo(retry.error).message}
        </Alert>
      )}
      {jobs.length === 0 ? (
        <Text size="sm" c="dimmed">
          No local-volume cleanup has failed or been quarantined.
        </Text>
      ) : (
        <DataTable
          label="Failed cleanups"
          data-testid="reclaim-cleanups"
          minWidth={700}
          columns={cleanupColumns((j) =>
            canRetry ? (
              <Button size="xs" variant="default" loading={retry.isPending && retry.variables?.jobId === j.id} onClick={() => retry.mutate({ jobId: j.id })} aria-label={`Retry the cleanup of ${j.pvName}`}>
                Retry
              </Button>
            ) : null,
          )}
          rows={jobs}
          rowKey={(j) => String(j.id)}
          rowProps={() => ({ 'data-testid': 'reclaim-cleanup' })}
        />
      )}
    </Paper>
  );
}

function cleanupColumns(actions: (j: JobView) => ReactNode): DataColumn<JobView>[] {
  return [
    { key: 'volume', header: 'Volume', width: 'minmax(140px, 2fr)', cell: (j) => <ObjectLink kind="PersistentVolume" name={j.pvName} /> },
    {
      key: 'state',
      header: 'State',
      cell: (j) => (
        <Badge color="red" variant="light" tt="none">
          {j.state}
        </Badge>
      ),
    },
    { key: 'method', header: 'Method', cell: (j) => j.method },
    { key: 'attempts', header: 'Attempts', cell: (j) => j.attempt },
    { key: 'error', header: 'Last error', width: 'minmax(160px, 2fr)', cell: (j) => <Text size="xs">{j.lastError ?? ''}</Text> },
    { key: 'actions', header: <VisuallyHidden>Actions</VisuallyHidden>, cell: actions },
  ];
}
