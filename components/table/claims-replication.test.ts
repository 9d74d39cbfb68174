import { describe, expect, test } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import { withVolumeReplication, type ClaimsReplication } from './claims-replication';
import type { Loaded } from './live-patch';

const ACTIVE = 'replication.stowage.io/active-node';
const REPLICAS = 'replication.stowage.io/replicas';
const claim = (name: string, volumeName?: string): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'ns' }, spec: volumeName ? { volumeName } : {} });
const pv = (name: string, claimName: string | undefined, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, annotations },
  spec: claimName ? { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: claimName } } : {},
});
const state = (replication: ClaimsReplication, rows: KubeObject[] = [claim('c', 'v')]): { replication: ClaimsReplication; loaded: Loaded } => ({ replication, loaded: { total: rows.length, rows } });
const repl = { [ACTIVE]: 'node-a', [REPLICAS]: '[{"node":"node-b","state":"Behind"}]' };

describe('withVolumeReplication', () => {
  test.each([
    { name: 'a loaded claim follows its volume becoming replicated', s: state({}), v: pv('v', 'c', repl), want: { 'ns/c': repl } },
    { name: 'a state change replaces the annotations', s: state({ 'ns/c': { [ACTIVE]: 'node-a', [REPLICAS]: '[]' } }), v: pv('v', 'c', repl), want: { 'ns/c': repl } },
    { name: 'a volume no longer replicated: an empty entry ("—")', s: state({ 'ns/c': repl }), v: pv('v', 'c'), want: { 'ns/c': {} } },
    { name: 'other annotations are not carried', s: state({}), v: pv('v', 'c', { ...repl, 'stowage.io/used-bytes': '5' }), want: { 'ns/c': repl } },
    { name: 'a claim not loaded: nothing', s: state({}, [claim('other', 'x')]), v: pv('v', 'c', repl), want: {} },
    { name: 'a loaded claim bound to another volume: nothing', s: state({}, [claim('c', 'w')]), v: pv('v', 'c', repl), want: {} },
    { name: 'a volume bound to no claim: nothing', s: state({}), v: pv('v', undefined, repl), want: {} },
    { name: 'a volume that never was replicated: nothing', s: state({}), v: pv('v', 'c', { 'stowage.io/used-bytes': '5' }), want: {} },
  ])('$name', ({ s, v, want }) => {
    expect(withVolumeReplication(s, v).replication).toEqual(want);
  });

  test('the same state when nothing changes (rows are not built again)', () => {
    const s = state({ 'ns/c': repl });
    expect(withVolumeReplication(s, pv('v', 'c', repl))).toBe(s);
  });
});
