'use client';
import { BackupsPage } from '@/components/backups/backups-page';

export default function Page() {
  return <BackupsPage />;
}
