'use client';
// The start page: the first list the user may see.
import { Center, Loader } from '@mantine/core';
import { useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { KINDS } from '@/components/kinds';
import { usePermissions } from '@/components/session';

export default function Home() {
  const perms = usePermissions();
  const router = useRouter();
  const first = KINDS.find((k) => perms.canListSomewhere(k.kind, k.namespaced));
  useEffect(() => {
    router.replace(first?.route ?? '/storage-classes');
  }, [first, router]);
  return (
    <Center py="xl">
      <Loader />
    </Center>
  );
}
