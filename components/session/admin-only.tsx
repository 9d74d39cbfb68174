'use client';
// A page only some roles may use says so at once, instead of a form that ends in a raw
// Forbidden: the same rule the server enforces (domain/authorization), checked before the
// page's form renders (or loads anything).
import { Alert, Anchor, Stack, Title } from '@mantine/core';
import Link from 'next/link';
import type { ReactNode } from 'react';
import type { Verb } from '@/server/domain/authorization';
import { usePermissions } from './session';

export function RequirePermission({ verb, kind, title, back, children }: { verb: Verb; kind: string; title: string; back: { href: string; label: string }; children: ReactNode }) {
  const perms = usePermissions();
  if (perms.can(verb, kind)) return <>{children}</>;
  return (
    <Stack gap="md">
      <Title order={1} size="h3">
        {title}
      </Title>
      <Alert color="gray" title="This page is for administrators" data-testid="admins-only">
        Your role may not do this; an administrator can. <Anchor component={Link} href={back.href} inherit>{back.label}</Anchor>
      </Alert>
    </Stack>
  );
}
