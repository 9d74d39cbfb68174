'use client';
import { Alert, Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'next/navigation';
import { useTRPC } from '@/components/data/trpc';
import { errorInfo } from '@/components/format/format';
import { QuotaForm } from '@/components/quotas/quota-form';
import { RequirePermission } from '@/components/session/admin-only';
import { isKind } from '@/server/resources/of-kind';

export default function Page() {
  const p = useParams<{ namespace: string; name: string }>();
  const namespace = decodeURIComponent(p.namespace);
  const name = decodeURIComponent(p.name);
  return (
    <RequirePermission verb="update" kind="ResourceQuota" title={`Edit quota ${name}`} back={{ href: `/quotas/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`, label: `Back to ${name}` }}>
      <EditQuota namespace={namespace} name={name} />
    </RequirePermission>
  );
}

function EditQuota({ namespace, name }: { namespace: string; name: string }) {
  const trpc = useTRPC();
  // Read once: the form edits this version, and a save of a stale one is a conflict.
  const q = useQuery({ ...trpc.objects.get.queryOptions({ kind: 'ResourceQuota', namespace, name }), staleTime: Infinity, refetchOnWindowFocus: false });
  if (q.error) return <Alert color="red">{errorInfo(q.error).message}</Alert>;
  if (!q.data || !isKind(q.data, 'ResourceQuota')) {
    return (
      <Center py="xl">
        <Loader role="status" aria-label="Loading" />
      </Center>
    );
  }
  return <QuotaForm key={q.data.metadata.resourceVersion} base={q.data} />;
}
