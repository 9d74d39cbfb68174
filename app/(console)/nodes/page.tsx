'use client';
import { Stack } from '@mantine/core';
import { ClassMapEditor } from '@/components/disks/class-map-editor';
import { NodesRollup } from '@/components/disks/nodes-rollup';
import { ObjectListPage } from '@/components/table/object-list';

export default function Page() {
  return (
    <Stack>
      {/* The list (with the page's h1) first; the local-disk roll-up and the storageClassMap below it. */}
      <ObjectListPage kind="Node" />
      <NodesRollup />
      <ClassMapEditor />
    </Stack>
  );
}
