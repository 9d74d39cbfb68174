'use client';
import { ObjectListPage } from '@/components/table/object-list';

export default function Page() {
  return <ObjectListPage kind="SnapshotSchedule" />;
}
