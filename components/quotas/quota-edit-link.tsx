'use client';
// "Edit limits" on a quota's page, for those who may change it (administrators).
import { Button } from '@mantine/core';
import Link from 'next/link';
import type { KubeObject } from '@/server/resources/types';
import { usePermissions } from '../session/session';

export function QuotaEditLink({ quota }: { quota: KubeObject }) {
  const perms = usePermissions();
  const { namespace, name } = quota.metadata;
  if (!namespace || !name || !perms.can('update', 'ResourceQuota', namespace)) return null;
  return (
    <Button component={Link} href={`/quotas/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/edit`} variant="light" size="xs" w="fit-content" data-testid="quota-edit-link">
      Edit limits
    </Button>
  );
}
