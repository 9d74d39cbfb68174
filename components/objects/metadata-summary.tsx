'use client';
// The metadata every object has (namespace, age, labels, annotations, finalizers, uid,
// version), for the Metadata card of its detail page.
import { Code, Stack, Text } from '@mantine/core';
import type { KubeObject } from '@/server/resources/types';
import { ageOf } from '../format/format';
import { ObjectLink } from './object-link';
import { pairs, shown, type SummaryItem } from './summary-parts';

export function metadataOf(obj: KubeObject, now: number): SummaryItem[] {
  const m = obj.metadata ?? {};
  return shown([
    Boolean(m.namespace) && {
      label: 'Namespace',
      value: <ObjectLink kind="Namespace" name={m.namespace!} />,
    },
    {
      label: 'Created',
      value: m.creationTimestamp ? (
        <Text span inherit title={m.creationTimestamp}>
          {ageOf(m.creationTimestamp, now)} ago <Text span c="dimmed" inherit fz="xs">({new Date(m.creationTimestamp).toLocaleString()})</Text>
        </Text>
      ) : (
        ''
      ),
    },
    { label: 'Labels', value: pairs(m.labels) ?? <Text span c="dimmed" inherit>none</Text> },
    Boolean(Object.keys(m.annotations ?? {}).length) && { label: 'Annotations', value: pairs(m.annotations) },
    Boolean(m.finalizers?.length) && {
      label: 'Finalizers',
      value: (
        <Stack gap={2} data-testid="finalizers">
          {m.finalizers!.map((f) => (
            <Text key={f} span inherit style={{ overflowWrap: 'anywhere' }}>
              {f}
            </Text>
          ))}
        </Stack>
      ),
    },
    { label: 'UID', value: <Code>{m.uid ?? ''}</Code> },
    { label: 'Resource version', value: <Code data-testid="resource-version">{m.resourceVersion ?? ''}</Code> },
  ]);
}
