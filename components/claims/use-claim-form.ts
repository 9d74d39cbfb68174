'use client';
// The state of the claim form: the draft (starting on the default class), its checks,
// the server's live check of what the claim would do, the quota room, and the create.
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { isDNS1123Subdomain } from '@/server/domain/names';
import { detailHref } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { sourceFromParams } from '../snapshots/snapshot-view';
import { useClaimSource } from '../snapshots/use-claim-source';
import { bytesOf, claimOf, fitModes, sizeProblem, type ClaimDraft } from './claim-draft';
import { useQuotaRoom } from './quota-room';

export const NO_CLASS = '__none__';

export function useClaimForm() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('create', 'PersistentVolumeClaim');
  const allNs = useQuery({ ...trpc.lists.page.queryOptions({ kind: 'Namespace', limit: 500 }), enabled: nsChoices === 'all' });
  const namespaces = nsChoices === 'all' ? (allNs.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean) : nsChoices;
  const classes = useQuery(trpc.claims.classes.queryOptions());

  const [draft, setDraft] = useState<ClaimDraft>({
    namespace: params.get('namespace') ?? (nsChoices === 'all' ? 'default' : (nsChoices[0] ?? '')),
    name: '',
    storageClassName: '',
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    size: '1',
    unit: 'Gi',
    dataSource: sourceFromParams(params),
  });
  const [classPicked, setClassPicked] = useState(false);
  const set = (p: Partial<ClaimDraft>) => setDraft((d) => ({ ...d, ...p }));

  // Start on the default class, once the classes are known.
  useEffect(() => {
    if (classPicked || !classes.data) return;
    const def = classes.data.find((c) => c.isDefault);
    if (def) setDraft((d) => ({ ...d, storageClassName: def.name, accessModes: fitModes(d.accessModes, def.accessModes) }));
  }, [classes.data, classPicked]);

  const cls = classes.data?.find((c) => c.name === draft.storageClassName);
  const pickClass = (name: string) => {
    setClassPicked(true);
    const c = classes.data?.find((x) => x.name === name);
    setDraft((d) => ({
      ...d,
      storageClassName: name === NO_CLASS ? '' : name,
      accessModes: c ? fitModes(d.accessModes, c.accessModes) : d.accessModes,
      volumeMode: c && !c.volumeModes.includes(d.volumeMode) ? (c.volumeModes[0] as ClaimDraft['volumeMode']) : d.volumeMode,
    }));
  };

  const nameProblem = draft.name && isDNS1123Subdomain(draft.name).length > 0 ? 'Lower-case letters, digits, "-" and "."; start and end with a letter or digit' : undefined;
  const sizeErr = sizeProblem(draft, cls?.minBytes);
  const modesErr = draft.accessModes.length === 0 ? 'Pick at least one' : undefined;
  const setSize = useCallback((s: Pick<ClaimDraft, 'size' | 'unit'>) => setDraft((d) => ({ ...d, ...s })), []);
  const source = useClaimSource(draft, bytesOf(draft), setSize, pickClass);
  const sourceErr = source.problem ?? (draft.dataSource && !draft.dataSource.name ? 'Pick where to start from' : undefined);
  const complete = Boolean(draft.name && draft.namespace && !nameProblem && !sizeErr && !modesErr && !sourceErr);
  const { claim, check, quota, create, submit } = useClaimSubmit(draft, complete, !sizeErr);

  // The quota's answer for the claim as it is now (the room is read a moment after each change).
  const overQuota = Boolean(quota?.refusal);
  return { namespaces, classes, draft, set, classPicked, cls, pickClass, nameProblem, sizeErr, modesErr, source, complete, overQuota, claim, check, quota, create, submit };
}

export type ClaimFormState = ReturnType<typeof useClaimForm>;

/** The live check and the quota room, a moment after the last change; and the create. */
function useClaimSubmit(draft: ClaimDraft, complete: boolean, sizeOk: boolean) {
  const trpc = useTRPC();
  const router = useRouter();
  const claim = useMemo(() => claimOf(draft), [draft]);
  const [debounced] = useDebouncedValue(claim, 300);
  const check = useQuery({
    ...trpc.claims.check.queryOptions({ claim: debounced }),
    enabled: complete,
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  const quota = useQuotaRoom(claim, Boolean(draft.namespace) && sizeOk);
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: (o) => router.push(detailHref('PersistentVolumeClaim', o.metadata.namespace, o.metadata.name ?? '') ?? '/claims'),
    }),
  );
  // A refusal answers the claim that was sent: once the class, size, name or anything else
  // changes, it no longer applies and goes away (the live check speaks for the new claim).
  const sent = JSON.stringify(claim);
  const { reset } = create;
  useEffect(() => reset(), [sent, reset]);
  const submit = () => complete && !quota?.refusal && create.mutate({ manifest: sent, namespace: draft.namespace });
  return { claim, check, quota, create, submit };
}
