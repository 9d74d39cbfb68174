'use client';
import { useParams } from 'next/navigation';
import { RestoreBackupPage } from '@/components/backups/restore-form';

export default function Page() {
  const p = useParams<{ namespace: string; name: string }>();
  return <RestoreBackupPage namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} />;
}
