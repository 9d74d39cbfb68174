'use client';
// Admins edit the storageClassMap (kube-system/local-volume-config) here; the server
// validates it (paths, methods, sizes) and names each offending field. Agents pick the
// change up within seconds.
import { Button, Group, Paper, Text, Textarea, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { stringify } from 'yaml';
import { SaveError } from '../forms/field-errors';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { isKind } from '@/server/resources/of-kind';

const ref = { kind: 'ConfigMap', namespace: 'kube-system', name: 'local-volume-config' };

export function ClassMapEditor() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const perms = usePermissions();
  const admin = perms.can('update', 'ConfigMap', 'kube-system');
  const q = useQuery({ ...trpc.objects.get.queryOptions(ref), enabled: admin });
  const [text, setText] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (q.data && text === undefined) setText((isKind(q.data, 'ConfigMap') ? q.data.data?.storageClassMap : undefined) ?? '');
  }, [q.data, text]);
  const save = useMutation(
    trpc.objects.update.mutationOptions({
      onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.objects.get.queryKey(ref) }),
    }),
  );
  if (!admin || !q.data) return null;
  const submit = () => {
    const obj = structuredClone(q.data);
    obj.data = { ...(obj.data ?? {}), storageClassMap: text ?? '' };
    save.mutate({ manifest: stringify(obj), kind: 'ConfigMap', namespace: 'kube-system', name: 'local-volume-config' });
  };
  const info = save.error ? errorInfo(save.error) : undefined;
  return (
    <Paper withBorder p="sm" data-testid="class-map-editor">
      <Title order={2} size="h4">Storage class map</Title>
      <Text size="xs" c="dimmed" mb="xs">
        kube-system/local-volume-config · data.storageClassMap: each StorageClass and its discovery directory. Agents apply changes within seconds.
      </Text>
      <Textarea
        value={text ?? ''}
        onChange={(e) => setText(e.currentTarget.value)}
        autosize
        minRows={6}
        maxRows={30}
        styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
        data-testid="class-map-text"
        aria-label="storageClassMap"
      />
      <Group mt="xs">
        <Button size="xs" onClick={submit} loading={save.isPending} data-testid="class-map-save">
          Save
        </Button>
        {save.isSuccess && !save.isPending && (
          <Text size="xs" c="green" data-testid="class-map-saved">
            Saved.
          </Text>
        )}
      </Group>
      {info && (
        <div style={{ marginTop: 8 }}>
          <SaveError title="The storage class map was not saved" message={info.message} causes={info.causes ?? []} />
        </div>
      )}
    </Paper>
  );
}
