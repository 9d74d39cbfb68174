'use client';
import { Alert, Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'next/navigation';
import { ClassForm } from '@/components/classes/class-form';
import { errorInfo } from '@/components/format/format';
import { useTRPC } from '@/components/data/trpc';
import { isKind } from '@/server/resources/of-kind';
import { RequirePermission } from '@/components/session/admin-only';

export default function Page() {
  const p = useParams<{ name: string }>();
  const name = decodeURIComponent(p.name);
  return (
    <RequirePermission verb="update" kind="StorageClass" title={`Edit storage class ${name}`} back={{ href: `/storage-classes/${encodeURIComponent(name)}`, label: `Back to ${name}` }}>
      <EditClass name={name} />
    </RequirePermission>
  );
}

function EditClass({ name }: { name: string }) {
  const trpc = useTRPC();
  // Read once: the form edits this version, and a save of a stale one is a conflict.
  const q = useQuery({ ...trpc.objects.get.queryOptions({ kind: 'StorageClass', name }), staleTime: Infinity, refetchOnWindowFocus: false });
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data || !isKind(q.data, 'StorageClass')) {
    return (
      <Center py="xl">
        <Loader role="status" aria-label="Loading" />
      </Center>
    );
  }
  return <ClassForm key={q.data.metadata.resourceVersion} base={q.data} />;
}
