'use client';
import { BackupTargetsPage } from '@/components/backups/targets-page';

export default function Page() {
  return <BackupTargetsPage />;
}
