'use client';
import { Suspense } from 'react';
import { PoolsPage } from '@/components/nodes/pools-page';

export default function Page() {
  return (
    <Suspense>
      <PoolsPage />
    </Suspense>
  );
}
