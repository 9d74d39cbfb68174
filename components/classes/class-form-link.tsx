'use client';
// On a StorageClass page: open the class in the form editor (those who may update classes).
import { Button } from '@mantine/core';
import Link from 'next/link';
import type { KubeObject } from '@/server/resources/types';
import { usePermissions } from '../session/session';

export function ClassFormLink({ sc }: { sc: KubeObject }) {
  const perms = usePermissions();
  if (!perms.can('update', 'StorageClass')) return null;
  return (
    <Button component={Link} href={`/storage-classes/${encodeURIComponent(sc.metadata.name ?? '')}/edit`} variant="light" size="xs" w="fit-content" data-testid="edit-class-form">
      Edit with form
    </Button>
  );
}
