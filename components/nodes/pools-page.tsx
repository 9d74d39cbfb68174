'use client';
// "Pools" in the navigation: every node's btrfs pools with their allocated, used and free
// room (the Capacity page's pools view), each node linking to its page; the raw
// CSIStorageCapacity objects stay one tab away (?view=objects), for their YAML.
import { SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { CapacityPools } from '../capacity/capacity-pools';
import { ObjectListPage } from '../table/object-list';

export function PoolsPage() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const view = params.get('view') === 'objects' ? 'objects' : 'pools';
  const switcher = (
    <SegmentedControl
      size="xs"
      w="fit-content"
      value={view}
      onChange={(v) => router.replace(v === 'objects' ? `${pathname}?view=objects` : pathname)}
      data={[
        { value: 'pools', label: 'Pools per node' },
        { value: 'objects', label: 'Capacity objects' },
      ]}
      aria-label="Show"
      data-testid="pools-view"
    />
  );
  if (view === 'objects') {
    return (
      <Stack gap="sm">
        {switcher}
        <ObjectListPage kind="CSIStorageCapacity" />
      </Stack>
    );
  }
  return (
    <Stack gap="sm" data-testid="pools-page">
      <Title order={1} size="h3">
        Pools
      </Title>
      {switcher}
      <Text size="sm" c="dimmed">
        Each node&apos;s btrfs pool per class: allocated (the volumes&apos; limits), used (the filesystem&apos;s), free, and the room for new volumes. A node&apos;s page shows its pools
        with its disks and volumes.
      </Text>
      <CapacityPools />
    </Stack>
  );
}
