// Links between objects: claim -> volume, volume -> claim, anything -> its class.
// Not prefetched: a list shows dozens of them, and prefetching each object's page would
// hold the browser's few connections while the list itself waits for its next page.
import { Anchor, Text } from '@mantine/core';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { detailHref } from './kinds';

export function ObjectLink({
  kind,
  namespace,
  name,
  children,
  allowed = true,
}: {
  kind: string;
  namespace?: string;
  name: string;
  children?: ReactNode;
  /** False when the user may not open it: plain text then. */
  allowed?: boolean;
}) {
  const href = detailHref(kind, namespace, name);
  if (!name) return null;
  if (!href || !allowed) return <Text span inherit>{children ?? name}</Text>;
  return (
    <Anchor component={Link} href={href} prefetch={false} inherit data-kind={kind}>
      {children ?? name}
    </Anchor>
  );
}
