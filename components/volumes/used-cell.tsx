'use client';
// A list's USED cell: "412 MiB of 1 GiB" over a thin bar (orange from 90%); empty when the
// volume's usage is unknown.
import { Progress, Stack, Text } from '@mantine/core';
import type { UsedView } from './used-view';

export function UsedCell({ used }: { used: UsedView | undefined }) {
  if (!used) return null;
  return (
    <Stack gap={2} data-testid="used-cell">
      <Text span fz="sm" lh={1.2}>
        {used.text}
      </Text>
      {used.percent !== undefined && (
        <Progress value={used.percent} size={3} color={used.percent >= 90 ? 'orange.8' : 'teal.8'} aria-label={`Used ${used.text}`} />
      )}
    </Stack>
  );
}
