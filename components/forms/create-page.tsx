'use client';
// Create from YAML: a starter manifest per kind, a namespace picker for namespaced kinds,
// and the server's validation errors listed by field path and marked in the editor.
import { Alert, Button, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMemo, useRef, useState } from 'react';
import { SaveError } from './field-errors';
import { errorInfo } from '../format/format';
import { detailHref, KINDS, kindUi } from '../objects/kinds';
import { checkYaml, locateCauses, marksOf, type LocatedCause } from './manifest-check';
import { usePermissions } from '../session/session';
import { TEMPLATES } from './templates';
import { useTRPC } from '../data/trpc';
import { YamlEditor, type LineMark, type YamlEditorHandle } from './yaml-editor';

interface Failure {
  title: string;
  message: string;
  causes: LocatedCause[];
  marks: LineMark[];
}

export function CreatePage() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const perms = usePermissions();
  const editor = useRef<YamlEditorHandle>(null);

  const creatable = KINDS.filter((k) => {
    const ns = perms.namespacesFor('create', k.kind);
    return ns === 'all' || ns.length > 0;
  });
  const wanted = kindUi(params.get('kind') ?? '');
  const [kind, setKind] = useState<string>(
    wanted && creatable.some((k) => k.kind === wanted.kind) ? wanted.kind : (creatable[0]?.kind ?? 'PersistentVolumeClaim'),
  );
  const [text, setText] = useState(TEMPLATES[kind] ?? '');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [checked, setChecked] = useState<string | null>(null);

  // The kind the YAML says, when it names a known one; else the picked kind.
  const parsed = useMemo(() => checkYaml(text), [text]);
  const yamlKind = parsed.ok && typeof parsed.value.kind === 'string' ? kindUi(parsed.value.kind)?.kind : undefined;
  const effective = kindUi(yamlKind ?? kind)!;
  const yamlNamespace = parsed.ok && typeof parsed.value.metadata?.namespace === 'string' ? parsed.value.metadata.namespace : undefined;

  const nsChoices = perms.namespacesFor('create', effective.kind);
  const allNs = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'Namespace' }), enabled: effective.namespaced && nsChoices === 'all' });
  const nsOptions =
    nsChoices === 'all' ? (allNs.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean).sort() : nsChoices;
  const [namespace, setNamespace] = useState<string | null>(
    params.get('namespace') || (nsChoices === 'all' ? 'default' : (nsChoices[0] ?? null)),
  );

  const create = useMutation(trpc.objects.create.mutationOptions());

  const pickKind = (k: string | null) => {
    if (!k) return;
    setKind(k);
    setText(TEMPLATES[k] ?? '');
    setFailure(null);
    setChecked(null);
  };

  const submit = (dryRun: boolean) => {
    setChecked(null);
    const check = checkYaml(text);
    if (!check.ok) {
      setFailure({
        title: 'Invalid YAML',
        message: `${check.message}. Nothing was created.`,
        causes: [],
        marks: check.line ? [{ line: check.line, message: check.message }] : [],
      });
      return;
    }
    const sent = text;
    create.mutate(
      { manifest: sent, namespace: effective.namespaced ? (namespace ?? undefined) : undefined, dryRun },
      {
        onSuccess: (obj) => {
          setFailure(null);
          if (dryRun) {
            setChecked(`The server accepts this ${obj.kind}; nothing was created yet.`);
            return;
          }
          const href = detailHref(obj.kind, obj.metadata.namespace, obj.metadata.name ?? '');
          router.push(href ?? kindUi(obj.kind)?.route ?? '/');
        },
        onError: (err) => {
          const info = errorInfo(err);
          const located = locateCauses(sent, info.causes);
          setFailure({
            title: info.reason === 'Invalid' ? `The ${effective.singular} is not valid` : dryRun ? 'Check failed' : 'Could not create',
            message: info.message,
            causes: located,
            marks: marksOf(located),
          });
        },
      },
    );
  };

  if (creatable.length === 0) {
    return (
      <Stack>
        <Title order={1} size="h3">Create from YAML</Title>
        <Alert color="gray" data-testid="forbidden">
          Your role may not create objects.
        </Alert>
      </Stack>
    );
  }

  return (
    <Stack gap="sm" maw={1100}>
      <Title order={1} size="h3">Create from YAML</Title>
      <Group gap="sm" align="flex-end">
        <Select
          label="Kind"
          w={240}
          data={creatable.map((k) => ({ value: k.kind, label: k.kind }))}
          value={kind}
          onChange={pickKind}
          allowDeselect={false}
          description="Loads a starter manifest"
        />
        {effective.namespaced && (
          <Select
            label="Namespace"
            w={220}
            data={nsOptions}
            value={namespace}
            onChange={setNamespace}
            searchable
            allowDeselect={false}
            description={yamlNamespace ? `The YAML says ${yamlNamespace}; that wins` : 'Used when the YAML names none'}
          />
        )}
      </Group>
      <Paper>
        <YamlEditor
          ref={editor}
          value={text}
          onChange={setText}
          marks={failure?.marks ?? []}
          minHeight="300px"
          label="Manifest YAML"
        />
      </Paper>
      {failure && (
        <SaveError title={failure.title} message={failure.message} causes={failure.causes} onJump={(l) => editor.current?.jumpTo(l)} />
      )}
      {checked && (
        <Alert color="teal" data-testid="check-ok">
          {checked}
        </Alert>
      )}
      <Group gap="sm">
        <Button onClick={() => submit(false)} loading={create.isPending && !create.variables?.dryRun}>
          Create
        </Button>
        <Button variant="default" onClick={() => submit(true)} loading={create.isPending && Boolean(create.variables?.dryRun)}>
          Validate
        </Button>
        <Button variant="subtle" color="gray" onClick={() => router.back()}>
          Cancel
        </Button>
        <Text size="xs" c="dimmed">
          The same YAML works with kubectl apply -f.
        </Text>
      </Group>
    </Stack>
  );
}
