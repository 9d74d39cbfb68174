'use client';
import { useParams } from 'next/navigation';
import { ObjectDetailPage } from '@/components/objects/object-detail';

export default function Page() {
  const p = useParams<{ namespace?: string; name: string }>();
  return <ObjectDetailPage kind="VolumeSnapshot" namespace={p.namespace ? decodeURIComponent(p.namespace) : undefined} name={decodeURIComponent(p.name)} />;
}
