'use client';
import { RequirePermission } from '@/components/session/admin-only';
import { VolumeForm } from '@/components/volumes/volume-form';

export default function Page() {
  return (
    <RequirePermission verb="create" kind="PersistentVolume" title="Create volume" back={{ href: '/claims/new', label: 'Request storage with a claim instead' }}>
      <VolumeForm />
    </RequirePermission>
  );
}
