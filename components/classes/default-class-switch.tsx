'use client';
// The "default class" switch on a StorageClass page: switching it on makes this class
// the only default (the others are switched off in the same transaction); switching it
// off takes this class's mark away. Says so when the API has left several defaults.
import { Alert, Button, Group, Modal, Paper, Stack, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import { isDefaultClass } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';

export function DefaultClassSwitch({ sc }: { sc: KubeObject }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const perms = usePermissions();
  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const name = sc.metadata.name ?? '';
  const on = isDefaultClass(sc);
  const move = useMutation(
    trpc.lists.setDefaultClass.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(),
    }),
  );
  const mayUpdate = perms.can('update', 'StorageClass');
  const defaults = (classes.data?.items ?? []).filter(isDefaultClass).map((c) => c.metadata.name ?? '');
  // Switching off the only default leaves claims without a class Pending: ask first.
  const [confirmOff, setConfirmOff] = useState(false);
  const onlyDefault = on && defaults.length <= 1;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
      <SeveralDefaultsAlert defaults={defaults} />
      {classes.data && <NoDefaultAlert defaults={defaults} />}
      <Modal opened={confirmOff} onClose={() => setConfirmOff(false)} title={<Text fw={600}>Leave the cluster without a default class?</Text>}>
        <Stack gap="sm">
          <Text size="sm" data-testid="only-default-warning">
            {name} is the only default class. Without a default, new claims that name no class stay Pending until an administrator makes a class the default
            again; existing claims are not affected.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmOff(false)}>
              Keep it the default
            </Button>
            <Button
              color="red"
              onClick={() => {
                setConfirmOff(false);
                move.mutate({ name, on: false });
              }}
              data-testid="confirm-no-default"
            >
              Switch off
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Group justify="space-between" align="center">
        <Switch
          label="Default class"
          description="Claims that name no class get this one. There is only ever one default."
          checked={on}
          // Until the classes are known it cannot tell whether this is the only default.
          disabled={!mayUpdate || move.isPending || !classes.data}
          onChange={(e) => (!e.currentTarget.checked && onlyDefault ? setConfirmOff(true) : move.mutate({ name, on: e.currentTarget.checked }))}
          data-testid="default-switch"
        />
        {!mayUpdate && (
          <Text size="xs" c="dimmed">
            Only administrators change the default.
          </Text>
        )}
      </Group>
      {move.error && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {errorInfo(move.error).message}
        </Text>
      )}
      </Stack>
    </Paper>
  );
}

/** Shown on class pages when the API has marked several classes default. */
export function SeveralDefaultsAlert({ defaults }: { defaults: string[] }) {
  if (defaults.length < 2) return null;
  return (
    <Alert color="orange" title="More than one default class" data-testid="several-defaults">
      {defaults.join(', ')} are all marked default (the API accepts this). Claims without a class get the newest of them.
      Switch on the default of the class that should be the only one: the others are switched off in the same step.
    </Alert>
  );
}

/** Shown when no class is the default: claims that name no class then stay Pending. */
export function NoDefaultAlert({ defaults }: { defaults: string[] }) {
  if (defaults.length > 0) return null;
  return (
    <Alert color="orange" title="No default storage class" data-testid="no-default-class">
      No class is the default, so new claims that name no class stay Pending. Open a class and switch on &quot;Default class&quot;.
    </Alert>
  );
}

/** The cluster-wide "no default class" notice, for pages that do not list classes themselves. */
export function NoDefaultClassNotice() {
  const trpc = useTRPC();
  const perms = usePermissions();
  const classes = useQuery({ ...trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }), enabled: perms.can('list', 'StorageClass') });
  if (!classes.data || classes.data.items.length === 0) return null;
  return <NoDefaultAlert defaults={classes.data.items.filter(isDefaultClass).map((c) => c.metadata.name ?? '')} />;
}
