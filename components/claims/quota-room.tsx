'use client';
// The namespace's quotas in the claim form: the room each storage limit leaves for the
// chosen class ("12 GiB of 50 GiB left in team-a for class fast"), and a warning before submit
// when this claim would be refused, with the server's own reason (same check as the create)
// said in human units.
import { Alert, List, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../data/trpc';
import { isSizeResource } from '../format/size';
import { SizeText } from '../format/size-text';
import { parseQuotaRefusal, quotaRefusalText } from '../format/quota-refusal';

/** The room the namespace's quotas leave for this claim, a moment after the last change. */
export function useQuotaRoom(claim: Record<string, unknown>, enabled: boolean) {
  const trpc = useTRPC();
  const [debounced] = useDebouncedValue(claim, 300);
  const room = useQuery({
    ...trpc.claims.quota.queryOptions({ claim: debounced }),
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 0,
    retry: false,
  });
  return enabled ? room.data : undefined;
}

export type QuotaRoomData = ReturnType<typeof useQuotaRoom>;

type QuotaLimit = NonNullable<QuotaRoomData>['limits'][number];

/** A storage limit's room in sizes ("12 GiB of 50 GiB left in team-a for class fast"); other limits as the server words them. */
function LimitText({ l, namespace }: { l: QuotaLimit; namespace: string }) {
  if (!isSizeResource(l.resource)) return <>{l.text}</>;
  return (
    <>
      <SizeText value={l.left} /> of <SizeText value={l.hard} /> left in {namespace}
      {l.className ? ` for class ${l.className}` : ''}
    </>
  );
}

/** The refusal in human units (upstream's words stay in the tooltip). */
function refusalText(refusal: string): string {
  const r = parseQuotaRefusal(refusal);
  return r ? quotaRefusalText(r) : `${refusal}.`;
}

export function QuotaRoom({ data: d }: { data: QuotaRoomData }) {
  if (!d || d.limits.length === 0) return null;
  const over = Boolean(d.refusal);
  return (
    <Alert
      color={over ? 'red' : 'gray'}
      title={over ? `This claim exceeds the quota of ${d.namespace}` : `Quota in ${d.namespace}`}
      data-testid="quota-room"
      data-exceeds={over ? 'true' : 'false'}
      aria-live="polite"
    >
      <List size="sm">
        {d.limits.map((l) => (
          <List.Item key={`${l.quota}/${l.resource}`}>
            <LimitText l={l} namespace={d.namespace} /> <Text span size="xs" c="dimmed">(quota {l.quota})</Text>
          </List.Item>
        ))}
      </List>
      {over && (
        <Text size="sm" mt={6} data-testid="quota-refusal" title={d.refusal}>
          {refusalText(d.refusal ?? '')} Request less, or ask an administrator for more room.
        </Text>
      )}
    </Alert>
  );
}
