'use client';
import { useParams } from 'next/navigation';
import { ObjectDetailPage } from '@/components/objects/object-detail';

// The node's page: its storage (status, drain, pools, disks, volumes) comes from the kind's panels (components/nodes).
export default function Page() {
  const p = useParams<{ name: string }>();
  return <ObjectDetailPage kind="Node" name={decodeURIComponent(p.name)} />;
}
