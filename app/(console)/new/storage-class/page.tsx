'use client';
import { ClassForm } from '@/components/classes/class-form';
import { RequirePermission } from '@/components/session/admin-only';

export default function Page() {
  return (
    <RequirePermission verb="create" kind="StorageClass" title="Create storage class" back={{ href: '/storage-classes', label: 'Back to storage classes' }}>
      <ClassForm />
    </RequirePermission>
  );
}
