'use client';
// The claim a snapshot (or a schedule) was taken of: a link while it exists, and marked
// deleted, without a link, once it is gone (the snapshot outlives its claim).
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { ObjectLink } from '../objects/object-link';
import { usePermissions } from '../session/session';

export function SourceClaimLink({ namespace, name }: { namespace: string | undefined; name: string }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = namespace ?? '';
  const allowed = perms.can('get', 'PersistentVolumeClaim', ns);
  const claim = useQuery({ ...trpc.objects.get.queryOptions({ kind: 'PersistentVolumeClaim', namespace: ns, name }), enabled: allowed && Boolean(name), retry: false });
  const gone = claim.isError && errorInfo(claim.error).code === 'NOT_FOUND';
  if (gone) {
    return (
      <Text span inherit data-testid="source-claim" data-gone="true">
        {name}{' '}
        <Text span c="dimmed" inherit>
          (deleted: the snapshots stay and restore to a new claim)
        </Text>
      </Text>
    );
  }
  return (
    <Text span inherit data-testid="source-claim" data-gone="false">
      <ObjectLink kind="PersistentVolumeClaim" namespace={namespace} name={name} allowed={allowed} />
    </Text>
  );
}
