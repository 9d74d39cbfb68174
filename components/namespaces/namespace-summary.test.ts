// A Terminating namespace's detail: since when it is being deleted and what it still holds,
// read from the namespace controller's conditions.
import { isValidElement, type ReactElement } from 'react';
import { describe, expect, test } from 'vitest';
import { emptyTally, countRemaining, nextConditions } from '@/server/domain/namespace-lifecycle';
import type { Namespace } from '@/server/resources/namespace/schema';
import { namespaceSummary } from './namespace-summary';
import type { Permissions } from '../session/session';

const perms: Permissions = { can: () => true, canListSomewhere: () => true, namespacesFor: () => 'all' };
const now = Date.parse('2026-01-01T00:10:00Z');

function ns(deleting: boolean): Namespace {
  const t = emptyTally();
  countRemaining(t, 'persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']);
  countRemaining(t, 'persistentvolumeclaims', '', ['kubernetes.io/pvc-protection']);
  countRemaining(t, 'volumesnapshots', 'snapshot.storage.k8s.io', []);
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop', creationTimestamp: '2026-01-01T00:00:00Z', ...(deleting ? { deletionTimestamp: '2026-01-01T00:07:00Z' } : {}) },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: deleting ? 'Terminating' : 'Active', conditions: deleting ? nextConditions([], t, '2026-01-01T00:07:00Z').conditions : [] },
  };
}

/** The text and the links of a rendered value (its elements' children, depth first). */
function flatten(node: unknown): { text: string; links: string[] } {
  if (node === null || node === undefined || typeof node === 'boolean') return { text: '', links: [] };
  if (typeof node === 'string' || typeof node === 'number') return { text: String(node), links: [] };
  if (Array.isArray(node)) {
    const parts = node.map(flatten);
    return { text: parts.map((p) => p.text).filter(Boolean).join(' '), links: parts.flatMap((p) => p.links) };
  }
  if (isValidElement(node)) {
    const props = (node as ReactElement<{ children?: unknown; href?: string }>).props;
    const inner = flatten(props.children);
    return { text: inner.text, links: [...(props.href ? [props.href] : []), ...inner.links] };
  }
  return { text: '', links: [] };
}

describe('a namespace\'s summary', () => {
  test('an Active namespace says nothing of deletion', () => {
    expect(namespaceSummary(ns(false), { perms, now }).map((i) => i.label)).not.toContain('Still holds');
  });

  test('a Terminating one says since when and what it still holds, with links to those lists', () => {
    const items = namespaceSummary(ns(true), { perms, now });
    const by = (label: string) => flatten(items.find((i) => i.label === label)?.value);
    expect(by('Deleting').text).toBe('since 3m ago: its content is deleted first, then the namespace goes');
    expect(by('Still holds').text).toBe('2 claims 1 snapshots');
    expect(by('Still holds').links).toEqual(['/claims?namespace=shop', '/snapshots?namespace=shop']);
    expect(by('Waiting on').text).toBe('kubernetes.io/pvc-protection (2)');
  });
});
