import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ObjectOf } from './kinds';
import type { PersistentVolume } from './persistent-volume/schema';
import { persistentVolumeStrategy } from './persistent-volume/strategy';
import type { KubeObject } from './types';

describe('kind types inferred from the schemas', () => {
  it('read fields as the schema has them, without the nulls the store never keeps', () => {
    expectTypeOf<ObjectOf<'PersistentVolume'>>().toEqualTypeOf<PersistentVolume>();
    expectTypeOf<PersistentVolume['metadata']>().toEqualTypeOf<KubeObject['metadata']>();
    expectTypeOf<NonNullable<NonNullable<PersistentVolume['spec']>['claimRef']>['uid']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<ObjectOf<'StorageClass'>['parameters']>>().toEqualTypeOf<Record<string, string>>();
    expectTypeOf<NonNullable<ObjectOf<'PersistentVolumeClaim'>['spec']>['accessModes']>().toEqualTypeOf<string[] | undefined>();
  });

  it('are accepted where any object is, but an object of unknown kind is not taken for a kind unchecked', () => {
    expectTypeOf<KubeObject>().not.toExtend<ObjectOf<'Node'>>();
    expectTypeOf<KubeObject>().not.toExtend<ObjectOf<'PersistentVolume'>>();
    expectTypeOf<ObjectOf<'Pod'>>().toExtend<KubeObject>();
    const pv: PersistentVolume = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'a' }, spec: { capacity: { storage: '1Gi' } } };
    expect(persistentVolumeStrategy.validateShape(pv)).toEqual([]);
  });
});
