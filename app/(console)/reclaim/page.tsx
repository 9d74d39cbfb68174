'use client';
import { ReclaimCenter } from '@/components/reclaim/reclaim-center';

export default function Page() {
  return <ReclaimCenter />;
}
