'use client';
// A quota's limits as bars: "38 GiB of 50 GiB" per resource, the exact quantities on hover.
// On the quota's detail page one bar per resource; in the list one short line per resource.
import { Group, Progress, Stack, Text } from '@mantine/core';
import { shortResource, type QuotaLimit } from './quota-usage';

function color(l: QuotaLimit): string {
  if (l.full) return 'red';
  return (l.percent ?? 0) >= 80 ? 'orange' : 'teal';
}

function Amounts({ l, compact }: { l: QuotaLimit; compact: boolean }) {
  return (
    <Text span inherit title={`${l.used} of ${l.hard}`} data-testid="quota-amounts">
      {compact ? `${l.usedText}/${l.hardText}` : `${l.usedText} of ${l.hardText}`}
    </Text>
  );
}

/** The quota's detail page: one bar per resource, its amounts beside its name. */
export function QuotaBars({ limits }: { limits: QuotaLimit[] }) {
  if (limits.length === 0) {
    return (
      <Text span c="dimmed" inherit>
        no limits
      </Text>
    );
  }
  return (
    <Stack gap={10} w="100%" data-testid="quota-bars">
      {limits.map((l) => (
        <Stack key={l.resource} gap={2} data-testid="quota-limit" data-resource={l.resource} data-full={l.full ? 'true' : 'false'}>
          <Group justify="space-between" gap="xs" wrap="nowrap" fz="sm">
            <Text span inherit style={{ overflowWrap: 'anywhere' }}>
              {l.resource}
            </Text>
            <Text span inherit c={l.full ? 'red.8' : undefined} miw="max-content">
              <Amounts l={l} compact={false} />
            </Text>
          </Group>
          {l.percent !== undefined && <Progress value={l.percent} color={color(l)} size="md" aria-label={`${l.resource}: ${l.usedText} of ${l.hardText} used`} />}
        </Stack>
      ))}
    </Stack>
  );
}

/** A list cell: one line per limit, its short name, a bar and "used / hard" (full names and exact quantities on hover). */
export function QuotaCell({ limits }: { limits: QuotaLimit[] }) {
  return (
    <Stack gap={2} fz="sm" w="100%" data-testid="quota-cell">
      {limits.map((l) => (
        <Group key={l.resource} gap={6} wrap="nowrap" data-testid="quota-limit" data-resource={l.resource} data-full={l.full ? 'true' : 'false'}>
          <Text span inherit title={l.resource} style={{ flex: '1 1 0', minWidth: 0, overflowWrap: 'anywhere' }}>
            {shortResource(l.resource)}
          </Text>
          {l.percent !== undefined && <Progress value={l.percent} color={color(l)} size="sm" w={48} style={{ flex: 'none' }} aria-label={`${l.resource}: ${l.usedText} of ${l.hardText} used`} />}
          <Text span inherit c={l.full ? 'red.8' : undefined} style={{ flex: 'none', whiteSpace: 'nowrap' }}>
            <Amounts l={l} compact />
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
