'use client';
// Edit an object as YAML. Saving sends the whole object with the resourceVersion it was
// loaded at; if someone changed it meanwhile, the server refuses (conflict) and the user
// may reload the latest version.
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { KubeObject } from '@/server/resources/types';
import { SaveError } from '../forms/field-errors';
import { errorInfo } from '../format/format';
import { objectYaml } from './object-yaml';
import { checkYaml, locateCauses, marksOf, type LocatedCause } from '../forms/manifest-check';
import { useTRPC } from '../data/trpc';
import { YamlEditor, type LineMark, type YamlEditorHandle } from '../forms/yaml-editor';

interface Failure {
  title: string;
  message: string;
  causes: LocatedCause[];
  marks: LineMark[];
  conflict: boolean;
}

export function EditButton({ obj }: { obj: KubeObject }) {
  const [opened, setOpened] = useState(0);
  return (
    <>
      <Button size="sm" variant="default" onClick={() => setOpened((n) => n + 1)}>
        Edit
      </Button>
      {opened > 0 && <EditModal key={opened} obj={obj} onClose={() => setOpened(0)} />}
    </>
  );
}

function EditModal({ obj, onClose }: { obj: KubeObject; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const editor = useRef<YamlEditorHandle>(null);
  const ref = { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
  const [text, setText] = useState(() => objectYaml(obj));
  const [failure, setFailure] = useState<Failure | null>(null);
  const [reloading, setReloading] = useState(false);
  const update = useMutation(trpc.objects.update.mutationOptions());

  const save = () => {
    const check = checkYaml(text);
    if (!check.ok) {
      setFailure({
        title: 'Invalid YAML',
        message: `${check.message}. Nothing was saved.`,
        causes: [],
        marks: check.line ? [{ line: check.line, message: check.message }] : [],
        conflict: false,
      });
      return;
    }
    const sent = text;
    update.mutate(
      { manifest: sent, ...ref },
      {
        onSuccess: (saved) => {
          queryClient.setQueryData(trpc.objects.get.queryKey(ref), saved);
          void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: obj.kind }) });
          onClose();
        },
        onError: (err) => {
          const info = errorInfo(err);
          const located = locateCauses(sent, info.causes);
          const conflict = info.reason === 'Conflict';
          setFailure({
            title: conflict ? 'Someone else changed this object' : info.reason === 'Invalid' ? 'Not valid' : 'Could not save',
            message: info.message,
            causes: located,
            marks: marksOf(located),
            conflict,
          });
        },
      },
    );
  };

  const reload = async () => {
    setReloading(true);
    try {
      const latest = await queryClient.fetchQuery({ ...trpc.objects.get.queryOptions(ref), staleTime: 0 });
      setText(objectYaml(latest));
      setFailure(null);
    } catch (e) {
      setFailure({ title: 'Could not reload', message: errorInfo(e).message, causes: [], marks: [], conflict: false });
    } finally {
      setReloading(false);
    }
  };

  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={
        <Text fw={600}>
          Edit {obj.kind} {obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}
          {obj.metadata.name}
        </Text>
      }
      closeOnClickOutside={false}
    >
      <Stack gap="sm">
        <YamlEditor ref={editor} value={text} onChange={setText} marks={failure?.marks ?? []} minHeight="360px" height="60vh" label="Edit YAML" />
        {failure && (
          <SaveError
            title={failure.title}
            message={failure.message}
            causes={failure.causes}
            onJump={(l) => editor.current?.jumpTo(l)}
            action={
              failure.conflict ? (
                <Group mt="sm">
                  <Button size="xs" color="red" variant="light" onClick={() => void reload()} loading={reloading}>
                    Reload latest
                  </Button>
                  <Text size="xs" c="dimmed">
                    Reloading replaces your edits with the current version.
                  </Text>
                </Group>
              ) : undefined
            }
          />
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} loading={update.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
