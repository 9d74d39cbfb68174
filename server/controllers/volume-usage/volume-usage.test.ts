import { describe, expect, it } from 'vitest';
import type { ProvisionerPlugin } from '../../provisioners/plugin';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { KubeObject } from '../../resources/types';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import type { AssetStore } from '../../store/provisioned-assets';
import { volumeUsageSpec } from './volume-usage';

const measuring = { name: 'stowage.io/host-path', usage: async () => ({ bytes: 1n, partial: false }) } as unknown as ProvisionerPlugin;
const silent = { name: 'stowage.io/loop' } as unknown as ProvisionerPlugin;
const spec = volumeUsageSpec({
  store: {} as ObjectStore,
  assets: {} as AssetStore,
  node: 'node-1',
  plugins: new Map([
    [measuring.name, measuring],
    [silent.name, silent],
  ]),
});

const pv = (by?: string): PersistentVolume => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v', ...(by ? { annotations: { 'pv.kubernetes.io/provisioned-by': by } } : {}) } });
const ev = (type: ChangeEvent['type'], obj: KubeObject): ChangeEvent => ({ type, rv: 1n, kind: 'PersistentVolume', namespace: '', name: 'v', object: obj }) as ChangeEvent;

describe('volume-usage watch: only new volumes of a measuring plugin (its own writes never feed back)', () => {
  it.each([
    { name: 'a new host-path volume', e: ev('ADDED', pv('stowage.io/host-path')), keys: ['pv/v'] },
    { name: 'a host-path volume modified (e.g. by this controller)', e: ev('MODIFIED', pv('stowage.io/host-path')), keys: [] },
    { name: 'a new volume of a plugin that cannot measure', e: ev('ADDED', pv('stowage.io/loop')), keys: [] },
    { name: 'a new static volume', e: ev('ADDED', pv()), keys: [] },
    { name: 'a deleted host-path volume', e: ev('DELETED', pv('stowage.io/host-path')), keys: [] },
  ])('$name', ({ e, keys }) => expect(spec.watch.keysFor(e)).toEqual(keys));
});
