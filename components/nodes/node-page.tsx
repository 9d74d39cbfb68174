'use client';
// One page per node: its status, drain and uncordon (administrators), then the object's page.
import { Group } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../data/trpc';
import { ObjectDetailPage } from '../objects/object-detail';
import { NodeDrainActions } from './drain-dialog';

export function NodePage({ name }: { name: string }) {
  const trpc = useTRPC();
  const get = useQuery(trpc.objects.get.queryOptions({ kind: 'Node', name }));
  const node = get.data;
  const cordoned = (node?.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true;
  return (
    <>
      {node && (
        <Group justify="flex-end" mb="xs">
          <NodeDrainActions node={name} cordoned={cordoned} />
        </Group>
      )}
      <ObjectDetailPage kind="Node" name={name} />
    </>
  );
}
