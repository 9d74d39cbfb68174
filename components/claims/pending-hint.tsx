'use client';
// The claims list: a Pending claim's status badge carries the binder's summary of why, as
// a tooltip (and as the accessible description).
import { Group, Text, Tooltip } from '@mantine/core';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { pendingHintOf } from './pending-reason';
import { StatusBadge } from '../objects/status-badge';

export function PendingStatus({ claim, text }: { claim: PersistentVolumeClaim; text: string }) {
  const hint = text === 'Pending' ? pendingHintOf(claim) : undefined;
  if (!hint) return <StatusBadge value={text} />;
  return (
    <Tooltip label={hint} multiline w={380} withArrow openDelay={150}>
      <Group gap={4} wrap="nowrap" data-testid="pending-hint" aria-label={`Pending: ${hint}`} tabIndex={0} w="max-content">
        <StatusBadge value={text} />
        <Text span size="xs" c="dimmed" aria-hidden>
          why?
        </Text>
      </Group>
    </Tooltip>
  );
}
