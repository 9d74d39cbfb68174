'use client';
// The state of the StorageClass editor: the draft, its checks, saving (create or update,
// then the default switch in a step of its own), "Clone and replace", and the YAML tab
// over the same draft.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import { parse, stringify } from 'yaml';
import type { FieldError } from '@/server/domain/errors';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { errorInfo } from '../format/format';
import { isDefaultClass } from '../objects/kinds';
import { useTRPC } from '../data/trpc';
import { classFromDraft, draftErrors, draftFromClass, emptyDraft, immutableChanges, type ClassDraft } from './class-draft';

export function useClassForm(base?: StorageClass) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<ClassDraft>(() => (base ? draftFromClass(base) : emptyDraft()));
  const [cloning, setCloning] = useState(false);
  const [inPlace, setInPlace] = useState(false);
  const [yamlBase, setYamlBase] = useState<StorageClass | undefined>(undefined);
  const [makeDefault, setMakeDefault] = useState(base ? isDefaultClass(base) : false);
  const [showErrors, setShowErrors] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const [serverError, setServerError] = useState<{ message: string; causes: FieldError[] } | null>(null);

  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const defaults = (classes.data?.items ?? []).filter(isDefaultClass).map((c) => c.metadata.name ?? '');

  const editing = !!base && !cloning;
  const formBase = editing ? base : yamlBase;
  const obj = useMemo(() => classFromDraft(draft, formBase), [draft, formBase]);
  const errors = useMemo(() => [...draftErrors(draft, editing ? base : undefined), ...(serverError?.causes ?? [])], [draft, editing, base, serverError]);
  const shown = showErrors ? errors : (serverError?.causes ?? []);
  const locked = base && editing ? immutableChanges(base, draft) : [];
  const { save, done, pending } = useClassSave({ base, obj, editing, makeDefault, errors, setShowErrors, setServerError });

  const startClone = () => {
    setCloning(true);
    setShowErrors(false);
    setServerError(null);
    setDraft((d) => ({ ...d, name: `${base!.metadata.name}-2` }));
  };
  const replaceInPlace = (on: boolean) => {
    setInPlace(on);
    setDraft((d) => ({ ...d, name: on ? base!.metadata.name! : `${base!.metadata.name}-2` }));
  };
  const preview = () => {
    setShowErrors(true);
    if (errors.length === 0) setPreviewing(true);
  };

  return {
    base,
    draft,
    setDraft,
    obj,
    editing,
    cloning,
    inPlace,
    defaults,
    makeDefault,
    setMakeDefault,
    errors,
    shown,
    showErrors,
    locked,
    serverError,
    pending,
    previewing,
    setPreviewing,
    save,
    done,
    startClone,
    replaceInPlace,
    preview,
    setYamlBase,
  };
}

export type ClassFormState = ReturnType<typeof useClassForm>;

/** Create or update the class, then move the default mark if it should move. */
function useClassSave(p: {
  base?: StorageClass;
  obj: StorageClass;
  editing: boolean;
  makeDefault: boolean;
  errors: FieldError[];
  setShowErrors: (on: boolean) => void;
  setServerError: Dispatch<SetStateAction<{ message: string; causes: FieldError[] } | null>>;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const setDefault = useMutation(trpc.lists.setDefaultClass.mutationOptions());
  const create = useMutation(trpc.objects.create.mutationOptions());
  const update = useMutation(trpc.objects.update.mutationOptions());
  const pending = create.isPending || update.isPending || setDefault.isPending;

  const done = async (name: string) => {
    await queryClient.invalidateQueries();
    router.push(`/storage-classes/${encodeURIComponent(name)}`);
  };
  const fail = (e: unknown) => {
    const info = errorInfo(e);
    p.setServerError({ message: info.message, causes: info.causes.map((c) => ({ field: c.field, reason: (c.reason ?? 'FieldValueInvalid') as FieldError['reason'], message: c.message })) });
  };
  const save = async () => {
    p.setShowErrors(true);
    p.setServerError(null);
    if (p.errors.length > 0) return;
    const { obj, editing, makeDefault, base } = p;
    const name = obj.metadata.name!;
    try {
      if (editing) {
        await update.mutateAsync({ manifest: stringify(obj), kind: 'StorageClass', name });
        if (makeDefault !== isDefaultClass(base!)) await setDefault.mutateAsync({ name, on: makeDefault });
      } else {
        await create.mutateAsync({ manifest: stringify(obj) });
        if (makeDefault) await setDefault.mutateAsync({ name, on: true });
      }
      await done(name);
    } catch (e) {
      fail(e);
    }
  };
  return { save, done, pending };
}

/** The YAML tab: the draft as YAML when the tab opens; each valid edit goes back into the draft. */
export function useClassYaml(f: Pick<ClassFormState, 'obj' | 'editing' | 'draft' | 'setDraft' | 'setYamlBase'>) {
  const [yamlText, setYamlText] = useState('');
  const [yamlError, setYamlError] = useState<string | null>(null);
  const [tab, setTab] = useState<string | null>('form');

  const toTab = (next: string | null) => {
    if (next === 'yaml') {
      setYamlText(stringify(f.obj));
      setYamlError(null);
    }
    setTab(next);
  };
  const onYaml = (text: string) => {
    setYamlText(text);
    try {
      // Parse boundary: YAML typed by the user, checked below for its kind and metadata only;
      // the draft reads it field by field and the server validates what is saved.
      const parsed = parse(text) as StorageClass;
      if (!parsed || typeof parsed !== 'object' || parsed.kind !== 'StorageClass' || !parsed.metadata || typeof parsed.metadata !== 'object') {
        setYamlError('The YAML must be one StorageClass (kind: StorageClass, with metadata)');
        return;
      }
      setYamlError(null);
      const next = draftFromClass(parsed);
      f.setDraft(f.editing ? { ...next, name: f.draft.name } : next);
      if (!f.editing) f.setYamlBase(parsed);
    } catch (e) {
      setYamlError(`Not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  return { yamlText, yamlError, tab, toTab, onYaml };
}
