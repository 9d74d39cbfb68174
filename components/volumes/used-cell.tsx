'use client';
// A list's USED cell: "412 MiB of 1 GiB" over a thin bar (orange from 90%); empty when the
// volume's usage is unknown. And the same on a volume's page, with the time it was measured.
import { Progress, Stack, Text } from '@mantine/core';
import { usageOf } from '@/server/domain/volume-usage';
import { isKind } from '@/server/resources/of-kind';
import type { KubeObject } from '@/server/resources/types';
import { usedOfRow, type UsedView } from './used-view';

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

/** A volume's page: used of its capacity, or why it is unknown. */
export function VolumeUsed({ pv }: { pv: KubeObject }) {
  const used = usedOfRow(pv, undefined);
  if (!used) {
    return (
      <Text span c="dimmed" inherit data-testid="volume-used" data-known="false">
        unknown (nothing reports this volume&apos;s usage)
      </Text>
    );
  }
  const at = usageOf(isKind(pv, 'PersistentVolume') ? pv : undefined)?.at;
  return (
    <Stack gap={2} maw={320} data-testid="volume-used" data-known="true">
      <Text span inherit title={at ? `measured at ${at}` : undefined}>
        {used.text}
        {used.percent !== undefined ? ` (${used.percent}%)` : ''}
      </Text>
      {used.percent !== undefined && <Progress value={used.percent} size="sm" color={used.percent >= 90 ? 'orange.8' : 'teal.8'} aria-label={`Used ${used.text}`} />}
    </Stack>
  );
}
