'use client';
import { useParams } from 'next/navigation';
import { BackupDetailPage } from '@/components/backups/backup-detail';

export default function Page() {
  const p = useParams<{ namespace: string; name: string }>();
  return <BackupDetailPage namespace={decodeURIComponent(p.namespace)} name={decodeURIComponent(p.name)} />;
}
