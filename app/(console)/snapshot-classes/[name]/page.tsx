'use client';
import { useParams } from 'next/navigation';
import { ObjectDetailPage } from '@/components/objects/object-detail';

export default function Page() {
  const p = useParams<{ name: string }>();
  return <ObjectDetailPage kind="VolumeSnapshotClass" name={decodeURIComponent(p.name)} />;
}
