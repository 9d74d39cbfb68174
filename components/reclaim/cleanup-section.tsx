'use client';
// The reclaim center's failed and quarantined local-volume cleanups, with the existing retry.
import { Alert, Badge, Button, Paper, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { JobView } from '@/server/services/local-volumes';
import { errorInfo } from '../format/format';
import { ObjectLink } from '../objects/object-link';
import { useTRPC } from '../data/trpc';

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
        <Table.ScrollContainer minWidth={700}>
          <Table data-testid="reclaim-cleanups">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Volume</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Method</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last error</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {jobs.map((j) => (
                <Table.Tr key={j.id} data-testid="reclaim-cleanup">
                  <Table.Td>
                    <ObjectLink kind="PersistentVolume" name={j.pvName} />
                  </Table.Td>
                  <Table.Td>
                    <Badge color="red" variant="light" tt="none">
                      {j.state}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{j.method}</Table.Td>
                  <Table.Td>{j.attempt}</Table.Td>
                  <Table.Td>
                    <Text size="xs">{j.lastError ?? ''}</Text>
                  </Table.Td>
                  <Table.Td>
                    {canRetry && (
                      <Button size="xs" variant="default" loading={retry.isPending && retry.variables?.jobId === j.id} onClick={() => retry.mutate({ jobId: j.id })} aria-label={`Retry the cleanup of ${j.pvName}`}>
                        Retry
                      </Button>
                    )}
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
