'use client';
import { useParams } from 'next/navigation';
import { NodeDisks } from '@/components/disks/node-disks';

export default function Page() {
  const p = useParams<{ name: string }>();
  return <NodeDisks node={decodeURIComponent(p.name)} />;
}
