'use client';
// The volume form's state: the draft (filled from the URL by "Create a matching volume"), the
// nodes and classes it offers, the checks the API runs (volume-draft.ts) and the create.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMemo, useState } from 'react';
import { stringify } from 'yaml';
import { useTRPC } from '../data/trpc';
import { draftFromParams, volumeDraftErrors, volumeErrorFor, volumeFromDraft, type VolumeDraft } from './volume-draft';

export function useVolumeForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const params = useSearchParams();
  const [d, setD] = useState<VolumeDraft>(() => draftFromParams((k) => params.get(k)));
  const [showErrors, setShowErrors] = useState(false);
  const nodes = useQuery(trpc.lists.page.queryOptions({ kind: 'Node', limit: 500 }));
  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const nodeNames = (nodes.data?.items ?? []).map((n) => n.metadata.name ?? '');
  const classNames = (classes.data?.items ?? []).map((c) => c.metadata.name ?? '');
  const errors = useMemo(() => volumeDraftErrors(d), [d]);
  const shown = showErrors ? errors : [];
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: async (pv) => {
        await queryClient.invalidateQueries();
        router.push(`/volumes/${encodeURIComponent(pv.metadata.name ?? '')}`);
      },
    }),
  );
  const set = (over: Partial<VolumeDraft>) => setD((prev) => ({ ...prev, ...over }));
  const submit = () => {
    setShowErrors(true);
    if (errors.length === 0) create.mutate({ manifest: stringify(volumeFromDraft(d)) });
  };
  /** The first shown error at one of `paths` (errors show once Create was tried). */
  const errorAt = (...paths: string[]) => volumeErrorFor(shown, ...paths);
  return { d, set, nodeNames, classNames, errors, showErrors, errorAt, create, submit, back: () => router.back() };
}

export type VolumeFormState = ReturnType<typeof useVolumeForm>;
