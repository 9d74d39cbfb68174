'use client';
// What the claim form's claim would do, as the server's check says: binds now to an
// existing volume, will be provisioned, would sit Pending (and the nearest volume's
// reasons), or is not valid.
import { Alert, Code, List, Loader, Stack, Text } from '@mantine/core';
import { errorInfo } from '../format/format';
import { formatSize } from '../format/size';

export function CheckResult({ complete, check }: { complete: boolean; check: { data?: CheckData; isFetching: boolean; error: unknown } }) {
  if (!complete) {
    return (
      <Alert color="gray" title="What will happen" data-testid="claim-check" data-outcome="incomplete">
        Fill in a name and a size to see what this claim would do.
      </Alert>
    );
  }
  if (check.error) {
    return (
      <Alert color="red" title="Could not check" data-testid="claim-check" data-outcome="error">
        {errorInfo(check.error).message}
      </Alert>
    );
  }
  const d = check.data;
  if (!d) return <Loader size="sm" role="status" aria-label="Checking" />;
  const color = d.outcome === 'binds' ? 'teal' : d.outcome === 'provisions' ? 'indigo' : d.outcome === 'pending' ? 'orange' : 'red';
  const title =
    d.outcome === 'binds' ? (d.onFirstUse ? 'Binds when a pod uses it' : 'Binds now to an existing volume') : d.outcome === 'provisions' ? 'Will be provisioned' : d.outcome === 'pending' ? 'Would sit Pending' : 'Not valid';
  return (
    <Alert color={color} title={title} data-testid="claim-check" data-outcome={d.outcome} aria-live="polite" aria-busy={check.isFetching}>
      <Stack gap={4}>
        <Text size="sm">
          {d.summary}
          {d.outcome === 'binds' && d.volume ? ` (volume ${d.volume})` : ''}
        </Text>
        {d.outcome === 'provisions' && d.pools && d.pools.length > 0 && <PoolRooms pools={d.pools} />}
        {d.outcome === 'pending' && d.nearest.length > 0 && (
          <>
            <Text size="sm" fw={500}>
              {d.nearest[0].name ? `Nearest is ${d.nearest[0].name}, because:` : `The nearest of ${d.nearCount} volume${d.nearCount === 1 ? '' : 's'} does not fit, because:`}
            </Text>
            <List size="sm" data-testid="nearest-reasons">
              {d.nearest[0].reasons.map((r) => (
                <List.Item key={r}>{r}</List.Item>
              ))}
            </List>
          </>
        )}
        {d.outcome === 'invalid' && d.causes.length > 0 && (
          <List size="sm">
            {d.causes.map((c) => (
              <List.Item key={`${c.field}:${c.message}`}>
                <Code>{c.field}</Code> {c.message}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}

type CheckData =
  | { outcome: 'binds'; summary: string; volume?: string; onFirstUse?: boolean }
  | { outcome: 'provisions'; summary: string; pools?: PoolRoom[] }
  | { outcome: 'pending'; summary: string; nearest: { name: string; reasons: string[] }[]; nearCount: number }
  | { outcome: 'invalid'; summary: string; causes: { field: string; message: string }[] };

interface PoolRoom {
  node: string;
  roomBytes: string;
  fits?: boolean;
  problem?: string;
}

/** A pool class: each node's room for new volumes, and whether this claim fits there. */
function PoolRooms({ pools }: { pools: PoolRoom[] }) {
  return (
    <>
      <Text size="sm" fw={500}>
        Room per node
      </Text>
      <List size="sm" data-testid="pool-rooms">
        {pools.map((p) => (
          <List.Item key={p.node} data-fits={p.fits ? 'true' : 'false'}>
            {p.node}: {p.problem ? `cannot serve (${p.problem})` : `${formatSize(p.roomBytes)} free for new volumes, ${p.fits ? 'fits' : 'too small for this claim'}`}
          </List.Item>
        ))}
      </List>
    </>
  );
}
