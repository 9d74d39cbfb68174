'use client';
import { CapacityPage } from '@/components/capacity/capacity-page';

export default function Page() {
  return <CapacityPage />;
}
