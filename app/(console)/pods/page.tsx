'use client';
import { ObjectListPage } from '@/components/object-list';

export default function Page() {
  return <ObjectListPage kind="Pod" />;
}
