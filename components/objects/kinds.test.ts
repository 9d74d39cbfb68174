// Where a kind's Create goes: its own form (keeping the namespace the list shows, for the
// namespaced ones), or no form (the YAML editor).
import { describe, expect, test } from 'vitest';
import { KINDS, kindUi } from './kinds';

describe('a kind\'s create form', () => {
  test.each([
    { kind: 'PersistentVolumeClaim', namespace: 'shop', href: '/claims/new?namespace=shop' },
    { kind: 'PersistentVolumeClaim', namespace: null, href: '/claims/new' },
    { kind: 'PersistentVolumeClaim', namespace: 'a b&c', href: '/claims/new?namespace=a%20b%26c' },
    { kind: 'ResourceQuota', namespace: 'shop', href: '/new/quota?namespace=shop' },
    { kind: 'ResourceQuota', namespace: null, href: '/new/quota' },
    { kind: 'PersistentVolume', namespace: null, href: '/new/volume' },
    { kind: 'StorageClass', namespace: null, href: '/new/storage-class' },
  ])('$kind in namespace $namespace: $href', ({ kind, namespace, href }) => {
    expect(kindUi(kind)?.createForm?.(namespace)).toBe(href);
  });

  test('the other kinds have none: Create opens the YAML editor', () => {
    const withForm = KINDS.filter((k) => k.createForm).map((k) => k.kind).sort();
    expect(withForm).toEqual(['PersistentVolume', 'PersistentVolumeClaim', 'ResourceQuota', 'StorageClass']);
  });
});
