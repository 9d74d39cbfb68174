'use client';
import { useSearchParams } from 'next/navigation';
import { QuotaForm } from '@/components/quotas/quota-form';
import { RequirePermission } from '@/components/session/admin-only';

export default function Page() {
  const params = useSearchParams();
  return (
    <RequirePermission verb="create" kind="ResourceQuota" title="Create quota" back={{ href: '/quotas', label: 'Back to quotas' }}>
      <QuotaForm namespace={params.get('namespace') ?? undefined} />
    </RequirePermission>
  );
}
