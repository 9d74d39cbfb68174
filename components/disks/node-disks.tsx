'use client';
// A node's Disks page: every entry its agent sees, eligible or not (with the reason), and
// each eligible disk's state line with a live progress bar while it is wiped. Polls every
// second (half a second while a wipe runs).
import { Alert, Badge, Button, Code, Group, Progress, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { DiskView } from '../data/api-types';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { SizeText } from '../format/size-text';
import { DataTable, type DataColumn } from '../table/data-table';
import { STAGES, stageIndex, wipeBar } from './disk-format';
import { useNow } from '../format/use-now';

const STAGE_COLOR: Record<string, string> = {
  discovered: 'gray',
  available: 'green',
  bound: 'blue',
  released: 'orange',
  wiping: 'violet',
  failed: 'red',
  quarantined: 'red',
  missing: 'gray',
  ineligible: 'gray',
};

function StateLine({ d }: { d: DiskView }) {
  const at = stageIndex(d.stage);
  if (at < 0) return <Badge color={STAGE_COLOR[d.stage]} variant="light" data-testid="disk-stage">{d.stage}</Badge>;
  return (
    <Group gap={4} wrap="wrap" data-testid="disk-state-line">
      {STAGES.slice(0, 5).map((s, i) => (
        <Badge
          key={s}
          size="xs"
          variant={i === at ? 'filled' : 'outline'}
          color={i === at ? STAGE_COLOR[d.stage] : 'gray'}
          tt="none"
          // The whole word (and the claim) shows: the chips wrap, a chip is never cut.
          styles={{ root: { maxWidth: 'none', height: 'auto', minHeight: 'var(--badge-height)' }, label: { overflow: 'visible', whiteSpace: 'normal', overflowWrap: 'anywhere' } }}
          data-testid={i === at ? 'disk-stage' : undefined}
          data-stage={i === at ? d.stage : undefined}
        >
          {i === at ? d.stage : s}
          {s === 'bound' && i === at && d.pv?.claim ? ` (${d.pv.claim})` : ''}
        </Badge>
      ))}
    </Group>
  );
}

function Wipe({ d, admin }: { d: DiskView; admin: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const done = () => void qc.invalidateQueries({ queryKey: trpc.localVolumes.nodeDisks.queryKey() });
  const retry = useMutation(trpc.localVolumes.retry.mutationOptions({ onSuccess: done }));
  const cancel = useMutation(trpc.localVolumes.cancel.mutationOptions({ onSuccess: done }));
  const now = useNow(1000);
  const j = d.job;
  if (!j) return null;
  const bar = wipeBar(j, now);
  const err = retry.error ?? cancel.error;
  return (
    <Stack gap={4} data-testid="disk-wipe" data-job-state={j.state}>
      <Group gap="xs">
        <Text size="xs">
          {j.method} · attempt {j.attempt} · {j.state}
          {j.cancelRequested ? ' (cancelling)' : ''}
        </Text>
        {bar.kind !== 'none' && (
          <Text size="xs" c="dimmed" data-testid="disk-wipe-rate">
            {bar.text}
          </Text>
        )}
      </Group>
      {bar.kind === 'determinate' && <Progress value={bar.percent} size="lg" data-testid="disk-progress" data-value={bar.percent} aria-label={`wipe ${bar.percent}%`} />}
      {/* Nothing measured yet: a full, moving bar (not an empty one), the text says how long it has run. */}
      {bar.kind === 'indeterminate' && <Progress value={100} striped animated size="lg" color="gray" data-testid="disk-progress" data-indeterminate="true" data-value={bar.text} aria-label={`wipe ${bar.text}`} />}
      {j.lastError && (
        <Text size="xs" c="var(--mantine-color-red-light-color)" data-testid="disk-wipe-error">
          {j.lastError}
        </Text>
      )}
      {j.outputTail.length > 0 && j.state !== 'running' && (
        <Code block fz="xs" data-testid="disk-wipe-output">
          {j.outputTail.slice(-5).join('\n')}
        </Code>
      )}
      {admin && (
        <Group gap="xs">
          {(j.state === 'failed' || j.state === 'quarantined') && (
            <Button size="compact-xs" onClick={() => retry.mutate({ jobId: j.id })} loading={retry.isPending} data-testid="disk-retry">
              Retry cleanup
            </Button>
          )}
          {(j.state === 'failed' || j.state === 'queued' || (j.state === 'running' && !j.cancelRequested)) && (
            <Tooltip label="The disk is quarantined: never offered again until a cleanup succeeds">
              <Button size="compact-xs" color="red" variant="light" onClick={() => cancel.mutate({ jobId: j.id })} loading={cancel.isPending} data-testid="disk-cancel">
                Cancel (quarantine)
              </Button>
            </Tooltip>
          )}
        </Group>
      )}
      {err && (
        <Text size="xs" c="var(--mantine-color-red-light-color)">
          {errorInfo(err).message}
        </Text>
      )}
    </Stack>
  );
}

function diskColumns(admin: boolean): DataColumn<DiskView>[] {
  return [
    {
      key: 'entry',
      header: 'Entry',
      width: 'minmax(140px, 2fr)',
      cell: (d) => (
        <>
          <Text size="sm" ff="monospace">
            {d.entryName}
          </Text>
          <Text size="xs" c="dimmed">
            {d.hostPath}
          </Text>
        </>
      ),
    },
    { key: 'class', header: 'Class', cell: (d) => d.className },
    {
      key: 'mode',
      header: 'Mode',
      // A bound disk's mode is its volume's (a block device formatted for a Filesystem volume reads Filesystem).
      cell: (d) =>
        d.pv && d.pv.volumeMode !== d.volumeMode ? (
          <Text size="sm" title={`The entry is a ${d.volumeMode === 'Block' ? 'block device' : 'directory'}; its volume is ${d.pv.volumeMode}`}>
            {d.pv.volumeMode}
            <Text span size="xs" c="dimmed">
              {' '}
              ({d.volumeMode === 'Block' ? 'block device' : d.volumeMode})
            </Text>
          </Text>
        ) : (
          (d.pv?.volumeMode ?? d.volumeMode)
        ),
    },
    { key: 'capacity', header: 'Capacity', cell: (d) => (d.eligible ? <SizeText value={d.capacityBytes} /> : '—') },
    {
      key: 'state',
      header: 'State',
      width: 'minmax(200px, 3fr)',
      cell: (d) => (
        <Stack gap={4}>
          <StateLine d={d} />
          {!d.eligible && (
            <Text size="xs" c="var(--mantine-color-orange-light-color)" data-testid="disk-reason">
              not offered: {d.reason}
            </Text>
          )}
          {!d.present && <Text size="xs" c="var(--mantine-color-red-light-color)">the agent no longer sees this entry</Text>}
          {d.pv?.diskMissing && <Text size="xs" c="var(--mantine-color-red-light-color)">disk missing: the claim keeps its volume</Text>}
          <Wipe d={d} admin={admin} />
        </Stack>
      ),
    },
    {
      key: 'volume',
      header: 'Volume',
      cell: (d) => (
        <>
          {d.pv ? (
            <Link href={`/volumes/${encodeURIComponent(d.pvName)}`} data-testid="disk-pv">
              {d.pvName}
            </Link>
          ) : (
            <Text size="xs" c="dimmed">
              none
            </Text>
          )}
          {d.pv && (
            <Text size="xs" c="dimmed" data-testid="disk-pv-phase">
              {d.pv.phase}
            </Text>
          )}
        </>
      ),
    },
  ];
}

/** The table of a node's disks alone (its page embeds it); nothing for who may not read volumes. */
/**
 * A node's disks, live (every second, twice a second while a cleanup runs), for who may read
 * volumes (who may not, may not read disks: no request is made).
 */
function useNodeDisks(node: string) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const admin = perms.can('update', 'PersistentVolume');
  const mayRead = perms.can('get', 'PersistentVolume');
  const q = useQuery({
    ...trpc.localVolumes.nodeDisks.queryOptions({ node }),
    enabled: mayRead,
    refetchInterval: (query) => (query.state.status === 'error' ? false : query.state.data?.disks.some((d) => d.job?.state === 'running') ? 500 : 1000),
    staleTime: 0,
  });
  return { q, admin, mayRead };
}

export function NodeDiskTable({ node }: { node: string }) {
  const { q, admin, mayRead } = useNodeDisks(node);
  if (!mayRead) return null;
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data) return <Text c="dimmed" size="sm">Loading disks…</Text>;
  return <DiskTable disks={q.data.disks} admin={admin} />;
}

function DiskTable({ disks, admin }: { disks: DiskView[]; admin: boolean }) {
  if (disks.length === 0) {
    return (
      <Text c="dimmed" size="sm" data-testid="no-disks">
        The agent reports no entries. Put directories, mount points or symlinks to block devices in a discovery directory of the storageClassMap.
      </Text>
    );
  }
  return (
    <DataTable
      label="Disks"
      data-testid="disk-table"
      columns={diskColumns(admin)}
      rows={disks}
      rowKey={(d) => `${d.className}/${d.entryName}`}
      rowProps={(d) => ({ 'data-testid': 'disk-row', 'data-entry': d.entryName, 'data-stage': d.stage })}
      striped={false}
      withBorder
    />
  );
}

export function NodeDisks({ node }: { node: string }) {
  // Who may not read volumes may not read disks: say so at once, without asking the server.
  const { q, admin, mayRead } = useNodeDisks(node);
  if (!mayRead) {
    return (
      <Stack data-testid="node-disks">
        <Title order={1} fz="h3">
          Disks of {node}
        </Title>
        <Alert color="gray" title="For administrators" data-testid="disks-forbidden">
          A node&apos;s disks and their cleanups are shown to administrators and viewers of volumes only.
        </Alert>
      </Stack>
    );
  }
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data) return <Text c="dimmed">Loading…</Text>;
  const { node: summary, disks } = q.data;
  return (
    <Stack data-testid="node-disks">
      <Group>
        <Title order={1} fz="h3">
          Disks of {node}
        </Title>
        {summary && (
          <Badge color={summary.ready ? 'green' : 'red'} variant="light" data-testid="node-reporting">
            {summary.ready ? 'reporting' : 'not reporting'}
          </Badge>
        )}
      </Group>
      {summary && !summary.ready && (
        <Alert color="red" title="This node's agent stopped reporting">
          Its volumes are kept and marked; nothing is deleted. Start its agent again (`stowage agent`), or delete the node&apos;s volumes by hand if the machine is gone.
        </Alert>
      )}
      <DiskTable disks={disks} admin={admin} />
    </Stack>
  );
}
