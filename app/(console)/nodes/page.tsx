'use client';
import { Stack } from '@mantine/core';
import { ClassMapEditor } from '@/components/disks/class-map-editor';
import { NodesRollup } from '@/components/disks/nodes-rollup';
import { ObjectListPage } from '@/components/table/object-list';

export default function Page() {
  return (
    <Stack>
      <NodesRollup />
      <ClassMapEditor />
      <ObjectListPage kind="Node" />
    </Stack>
  );
}
