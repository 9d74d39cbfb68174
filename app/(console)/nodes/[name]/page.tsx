'use client';
import { useParams } from 'next/navigation';
import { NodePage } from '@/components/nodes/node-page';

export default function Page() {
  const p = useParams<{ name: string }>();
  return <NodePage name={decodeURIComponent(p.name)} />;
}
