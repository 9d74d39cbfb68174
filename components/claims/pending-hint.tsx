'use client';
// The claims list: a Pending claim's status badge carries the binder's summary of why, as
// a tooltip (and as the accessible description); the badge keeps the list's width, a "?" in it.
import { Tooltip } from '@mantine/core';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { pendingHintOf } from './pending-reason';
import { StatusBadge } from '../objects/status-badge';

export function PendingStatus({ claim, text }: { claim: PersistentVolumeClaim; text: string }) {
  const hint = text === 'Pending' ? pendingHintOf(claim) : undefined;
  if (!hint) return <StatusBadge value={text} fixed />;
  return (
    <Tooltip label={hint} multiline w={380} maw="90vw" withArrow openDelay={150}>
      <span data-testid="pending-hint" aria-label={`Pending: ${hint}`} tabIndex={0} style={{ display: 'inline-flex', cursor: 'help' }}>
        <StatusBadge value={text} fixed hinted />
      </span>
    </Tooltip>
  );
}
