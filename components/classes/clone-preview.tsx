'use client';
// The clone-and-replace preview: every field that differs, the steps that will run (each
// a single write: create the clone, move the default, delete the original), checked by
// a dry run of the create first. A step that fails stops the rest and says what was done.
// "Replace in place" (same name) is one server transaction instead: delete the class,
// create the changed one, move the default mark; its dry run runs every check of the
// write and returns the steps, shown here as the server will take them.
import { Alert, Button, Checkbox, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { stringify } from 'yaml';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import { isDefaultClass } from '../objects/kinds';
import { useTRPC } from '../data/trpc';
import { DataTable } from '../table/data-table';
import { classChanges } from './class-draft';

export function ClonePreview({
  opened,
  onClose,
  original,
  clone,
  moveDefault,
  inPlace = false,
  onDone,
}: {
  /** Replace in place: same name, one transaction on the server. */
  inPlace?: boolean;
  opened: boolean;
  onClose: () => void;
  original: KubeObject;
  clone: KubeObject;
  moveDefault: boolean;
  onDone: (name: string) => void;
}) {
  const trpc = useTRPC();
  const [deleteOriginal, setDeleteOriginal] = useState(false);
  const [progress, setProgress] = useState<string[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const dryRun = useMutation(trpc.objects.create.mutationOptions());
  const replaceDry = useMutation(trpc.storageClasses.replaceInPlace.mutationOptions());
  const replace = useMutation(trpc.storageClasses.replaceInPlace.mutationOptions());
  const create = useMutation(trpc.objects.create.mutationOptions());
  const setDefault = useMutation(trpc.lists.setDefaultClass.mutationOptions());
  const del = useMutation(trpc.objects.delete.mutationOptions());
  const oldName = original.metadata.name ?? '';
  const newName = clone.metadata.name ?? '';
  const manifest = stringify(clone);
  const { mutate: check } = dryRun;
  const { mutate: checkReplace } = replaceDry;
  const version = original.metadata.resourceVersion ?? '';
  const replaceInput = { name: oldName, resourceVersion: version, manifest, makeDefault: moveDefault };

  useEffect(() => {
    if (!opened) return;
    setProgress([]);
    setFailure(null);
    if (inPlace) checkReplace({ name: oldName, resourceVersion: version, manifest, makeDefault: moveDefault, dryRun: true });
    else check({ manifest, dryRun: true });
  }, [opened, manifest, check, checkReplace, inPlace, oldName, version, moveDefault]);
  const checked = inPlace ? replaceDry : dryRun;

  const changes = classChanges(original, clone);
  const steps = inPlace
    ? (replaceDry.data?.steps ?? [`delete class ${oldName}`, `create class ${oldName} with the changes`])
    : [
    `create class ${newName}`,
    ...(moveDefault ? [`make ${newName} the default class${isDefaultClass(original) ? ` (${oldName} stops being it)` : ''}`] : []),
    ...(deleteOriginal ? [`delete class ${oldName} (volumes and claims naming it keep the name)`] : []),
      ];

  const run = async () => {
    setRunning(true);
    setFailure(null);
    if (inPlace) {
      try {
        await replace.mutateAsync(replaceInput);
        setProgress([`replaced ${oldName}`]);
        onDone(oldName);
      } catch (e) {
        setFailure(`${errorInfo(e).message} (nothing was changed)`);
      } finally {
        setRunning(false);
      }
      return;
    }
    const did: string[] = [];
    try {
      await create.mutateAsync({ manifest });
      did.push(`created ${newName}`);
      if (moveDefault) {
        await setDefault.mutateAsync({ name: newName, on: true });
        did.push(`${newName} is the default`);
      }
      if (deleteOriginal) {
        await del.mutateAsync({ kind: 'StorageClass', name: oldName });
        did.push(`deleted ${oldName}`);
      }
      setProgress(did);
      onDone(newName);
    } catch (e) {
      setProgress(did);
      setFailure(`${errorInfo(e).message}${did.length ? ` (done before it failed: ${did.join('; ')})` : ' (nothing was changed)'}`);
    } finally {
      setRunning(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} size="lg" closeButtonProps={{ 'aria-label': 'Close' }} title={<Text fw={600}>{inPlace ? `Replace ${oldName} in place?` : `Clone ${oldName} as ${newName}?`}</Text>}>
      <Stack gap="sm" data-testid="clone-preview">
        <DataTable
          label="What changes"
          columns={[
            { key: 'field', header: 'Field', cell: (c) => c.field },
            { key: 'before', header: inPlace ? 'Now' : oldName, cell: (c) => c.before || '—' },
            { key: 'after', header: inPlace ? 'After' : newName, cell: (c) => c.after || '—' },
          ]}
          rows={changes}
          rowKey={(c) => c.field}
          rowProps={(c) => ({ 'data-testid': 'clone-change', 'data-field': c.field })}
          striped={false}
        />
        {inPlace ? (
          <Text size="sm">
            {oldName} is deleted and created again with these changes in one transaction, at version {version}: if it changed since, or the new class is
            refused, nothing is changed. Claims and volumes that name {oldName} keep working.
          </Text>
        ) : (
          <Checkbox label={`Delete ${oldName} once ${newName} exists`} checked={deleteOriginal} onChange={(e) => setDeleteOriginal(e.currentTarget.checked)} />
        )}
        <div>
          <Text size="sm" fw={600}>
            Steps
          </Text>
          <List size="sm" type="ordered">
            {steps.map((s) => (
              <List.Item key={s}>{s}</List.Item>
            ))}
          </List>
        </div>
        {checked.isError && (
          <Alert color="red" title={inPlace ? 'The server would refuse the replacement' : 'The server would refuse the clone'} role="alert">
            {errorInfo(checked.error).message}
          </Alert>
        )}
        {checked.isSuccess && (
          <Text size="sm" c="teal.9">
            {inPlace ? 'A dry run of the replacement passed every check.' : 'A dry run of the create passed every check.'}
          </Text>
        )}
        {failure && (
          <Alert color="red" role="alert">
            {failure}
          </Alert>
        )}
        {progress.length > 0 && !failure && <Text size="sm">{progress.join('; ')}</Text>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void run()} loading={running} disabled={!checked.isSuccess} data-testid="confirm-clone">
            {inPlace ? 'Replace in place' : `Clone${deleteOriginal ? ' and replace' : ''}`}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
