'use client';
// The schedules that snapshot a claim, on its Snapshots tab: each with its interval, count,
// last and next slot and any message, editable in place (every, keep, paused) for schedules
// of this claim alone; schedules by label selector are shown and link to their page. A form
// adds a schedule for this claim. Field errors come from the server, as kubectl shows them.
import { Alert, Badge, Button, Checkbox, Group, NumberInput, Paper, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { everyProblem, MAX_KEEP, MIN_KEEP } from '@/server/domain/snapshot-schedule';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import { isKind } from '@/server/resources/of-kind';
import { MAX_BACKUP_KEEP, MIN_BACKUP_KEEP, scheduleTarget } from '@/server/resources/snapshot-schedule/strategy';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo } from '../format/format';
import { useNow } from '../format/use-now';
import { SaveError } from '../forms/field-errors';
import { ObjectLink } from '../objects/object-link';
import { usePermissions } from '../session/session';
import { RowDeleteButton } from '../objects/delete-button';
import { scheduleName, schedulesOfClaim } from './snapshot-view';

interface Draft {
  every: string;
  keep: number | string;
  suspend: boolean;
  /** Each snapshot is also backed up. */
  backup: boolean;
  /** The target; DEFAULT_TARGET for the default one. */
  backupTarget: string;
  backupKeep: number | string;
}

/** Not a name a target can have (names are DNS subdomains): the choice "the default target". */
const DEFAULT_TARGET = '(default)';

function draftOf(s: SnapshotSchedule): Draft {
  const b = s.spec?.backup;
  return { every: s.spec?.every ?? '', keep: s.spec?.keep ?? 1, suspend: Boolean(s.spec?.suspend), backup: Boolean(b), backupTarget: b?.targetName ?? DEFAULT_TARGET, backupKeep: b?.keep ?? 7 };
}

const backupOf = (d: Draft) => (d.backup ? { keep: Number(d.backupKeep), ...(d.backupTarget && d.backupTarget !== DEFAULT_TARGET ? { targetName: d.backupTarget } : {}) } : undefined);

export function ClaimSchedules({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const list = useQuery(trpc.objects.list.queryOptions({ kind: 'SnapshotSchedule', namespace: ns }));
  const schedules = schedulesOfClaim((list.data?.items ?? []).filter((o): o is SnapshotSchedule => isKind(o, 'SnapshotSchedule')), claim);
  const mayWrite = perms.can('create', 'SnapshotSchedule', ns);
  return (
    <Stack gap="xs" data-testid="claim-schedules">
      <Text fw={600} size="sm">
        Schedules
      </Text>
      {list.isError && <Alert color="red">{errorInfo(list.error).message}</Alert>}
      {list.data && schedules.length === 0 && (
        <Text size="sm" c="dimmed" data-testid="no-schedules">
          No schedule snapshots this claim.
        </Text>
      )}
      {schedules.map((s) => (
        <ScheduleCard key={s.metadata.uid} schedule={s} claim={claim} mayWrite={mayWrite} />
      ))}
      {mayWrite && <NewSchedule claim={claim} taken={schedules.map((s) => s.metadata.name ?? '')} />}
    </Stack>
  );
}

function useSave(namespace: string, onDone: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.snapshots.saveSchedule.mutationOptions({
      onSuccess: () => {
        onDone();
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: 'SnapshotSchedule', namespace }) });
      },
    }),
  );
}

function DraftFields({ draft, set, testPrefix }: { draft: Draft; set: (d: Draft) => void; testPrefix: string }) {
  const everyErr = draft.every ? everyProblem(draft.every) : undefined;
  return (
    <Group gap="sm" align="flex-start">
      <TextInput
        label="Every"
        description="30m, 6h, 1d ... at least 5m"
        w={170}
        value={draft.every}
        onChange={(e) => set({ ...draft, every: e.currentTarget.value.trim() })}
        error={everyErr && `Every ${everyErr}`}
        data-testid={`${testPrefix}-every`}
      />
      <NumberInput
        label="Keep"
        description={`${MIN_KEEP} to ${MAX_KEEP} newest`}
        w={140}
        min={MIN_KEEP}
        max={MAX_KEEP}
        allowDecimal={false}
        value={draft.keep}
        onChange={(v) => set({ ...draft, keep: v })}
        data-testid={`${testPrefix}-keep`}
      />
      <Switch mt={34} label="Paused" checked={draft.suspend} onChange={(e) => set({ ...draft, suspend: e.currentTarget.checked })} />
      <BackupFields draft={draft} set={set} testPrefix={testPrefix} />
    </Group>
  );
}

/** The backup option: a checkbox, the target (names and readiness only, from backups.targetChoices), keep N. */
function BackupFields({ draft, set, testPrefix }: { draft: Draft; set: (d: Draft) => void; testPrefix: string }) {
  const trpc = useTRPC();
  const choices = useQuery({ ...trpc.backups.targetChoices.queryOptions(), enabled: draft.backup });
  const options = [
    { value: DEFAULT_TARGET, label: 'The default target' },
    ...(choices.data ?? []).map((c) => ({ value: c.name, label: `${c.name}${c.default ? ' (default)' : ''}${c.ready ? '' : ' — not ready'}` })),
  ];
  return (
    <Stack gap={6}>
      <Checkbox mt={34} label="Also back up each snapshot" checked={draft.backup} onChange={(e) => set({ ...draft, backup: e.currentTarget.checked })} data-testid={`${testPrefix}-backup`} />
      {draft.backup && (
        <Group gap="sm" align="flex-start">
          <Select
            label="Backup target"
            w={220}
            data={options}
            value={draft.backupTarget}
            onChange={(v) => set({ ...draft, backupTarget: v ?? DEFAULT_TARGET })}
            allowDeselect={false}
            error={choices.isError ? errorInfo(choices.error).message : undefined}
            data-testid={`${testPrefix}-backup-target`}
          />
          <NumberInput
            label="Keep backups"
            description={`${MIN_BACKUP_KEEP} to ${MAX_BACKUP_KEEP} newest completed`}
            w={170}
            min={MIN_BACKUP_KEEP}
            max={MAX_BACKUP_KEEP}
            allowDecimal={false}
            value={draft.backupKeep}
            onChange={(v) => set({ ...draft, backupKeep: v })}
            data-testid={`${testPrefix}-backup-keep`}
          />
        </Group>
      )}
    </Stack>
  );
}

const draftOk = (d: Draft) =>
  Boolean(d.every) &&
  !everyProblem(d.every) &&
  typeof d.keep === 'number' &&
  d.keep >= MIN_KEEP &&
  d.keep <= MAX_KEEP &&
  (!d.backup || (typeof d.backupKeep === 'number' && d.backupKeep >= MIN_BACKUP_KEEP && d.backupKeep <= MAX_BACKUP_KEEP));

function ScheduleCard({ schedule, claim, mayWrite }: { schedule: SnapshotSchedule; claim: PersistentVolumeClaim; mayWrite: boolean }) {
  const now = useNow(5000);
  const ns = schedule.metadata.namespace ?? '';
  const name = schedule.metadata.name ?? '';
  const [editing, setEditing] = useState<Draft | undefined>();
  const save = useSave(ns, () => setEditing(undefined));
  const ownClaim = schedule.spec?.target?.claimName === claim.metadata.name;
  const st = schedule.status;
  return (
    <Paper withBorder p="sm" data-testid="schedule-card" data-name={name}>
      <Stack gap={6}>
        <Group justify="space-between">
          <Group gap="xs">
            <ObjectLink kind="SnapshotSchedule" namespace={ns} name={name} />
            <Text size="sm" data-testid="schedule-summary">
              every {schedule.spec?.every}, keeps {schedule.spec?.keep}
              {ownClaim ? '' : ` (claims matching ${scheduleTarget(schedule)})`}
            </Text>
            {schedule.spec?.suspend && <Badge color="gray">paused</Badge>}
            {schedule.spec?.backup && (
              <Badge color="blue" data-testid="schedule-backup">
                backs up to {schedule.spec.backup.targetName ?? 'the default target'}, keeps {schedule.spec.backup.keep}
              </Badge>
            )}
          </Group>
          {mayWrite && !editing && (
            <Group gap="xs">
              {ownClaim && (
                <Button size="compact-sm" variant="subtle" onClick={() => setEditing(draftOf(schedule))} data-testid="edit-schedule">
                  Edit
                </Button>
              )}
              <RowDeleteButton kind="SnapshotSchedule" namespace={ns} name={name} what="schedule" note="The snapshots it took stay." />
            </Group>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {st?.lastScheduleTime ? `Last slot ${ageOf(st.lastScheduleTime, now)} ago` : 'No snapshot taken yet'}
          {st?.nextScheduleTime ? ` · next at ${new Date(st.nextScheduleTime).toLocaleString()}` : ''}
        </Text>
        {st?.message && (
          <Text size="xs" c="orange" data-testid="schedule-message">
            {st.message}
          </Text>
        )}
        {editing && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (draftOk(editing)) save.mutate({ namespace: ns, name, claimName: claim.metadata.name ?? '', every: editing.every, keep: Number(editing.keep), suspend: editing.suspend, backup: backupOf(editing), snapshotClassName: schedule.spec?.snapshotClassName, resourceVersion: schedule.metadata.resourceVersion, generation: schedule.metadata.generation ?? undefined });
            }}
          >
            <Stack gap="xs">
              <DraftFields draft={editing} set={setEditing} testPrefix="edit-schedule" />
              {save.error && <SaveError title="Not saved" message={errorInfo(save.error).message} causes={errorInfo(save.error).causes} />}
              <Group gap="xs">
                <Button type="submit" size="xs" loading={save.isPending} disabled={!draftOk(editing)} data-testid="save-schedule">
                  Save
                </Button>
                <Button size="xs" variant="default" onClick={() => setEditing(undefined)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Stack>
    </Paper>
  );
}

function NewSchedule({ claim, taken }: { claim: PersistentVolumeClaim; taken: string[] }) {
  const [draft, setDraft] = useState<Draft | undefined>();
  const ns = claim.metadata.namespace ?? '';
  const save = useSave(ns, () => setDraft(undefined));
  if (!draft) {
    return (
      <Button size="xs" variant="light" w="fit-content" onClick={() => setDraft({ every: '6h', keep: 7, suspend: false, backup: false, backupTarget: DEFAULT_TARGET, backupKeep: 7 })} data-testid="add-schedule">
        Add a schedule
      </Button>
    );
  }
  const claimName = claim.metadata.name ?? '';
  return (
    <Paper withBorder p="sm">
      <form
        aria-label="New schedule"
        onSubmit={(e) => {
          e.preventDefault();
          if (draftOk(draft)) save.mutate({ namespace: ns, name: scheduleName(claimName, draft.every, taken), claimName, every: draft.every, keep: Number(draft.keep), suspend: draft.suspend, backup: backupOf(draft) });
        }}
      >
        <Stack gap="xs">
          <DraftFields draft={draft} set={setDraft} testPrefix="new-schedule" />
          {save.error && <SaveError title="Not created" message={errorInfo(save.error).message} causes={errorInfo(save.error).causes} />}
          <Group gap="xs">
            <Button type="submit" size="xs" loading={save.isPending} disabled={!draftOk(draft)} data-testid="create-schedule">
              Create schedule
            </Button>
            <Button size="xs" variant="default" onClick={() => setDraft(undefined)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
