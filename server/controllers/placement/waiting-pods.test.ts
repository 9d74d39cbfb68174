// Which pods a change re-places: only those whose inputs it touched, never every waiting pod.
import { describe, expect, test } from 'vitest';
import type { ChangeEvent } from '../../store/change-feed';
import { placementKeysFor } from './placement';
import { WaitingPods } from './waiting-pods';

function waiting(): WaitingPods {
  const w = new WaitingPods();
  w.waiting('pod/ns/a', ['ns/claim-a'], false); // its claim is being provisioned
  w.waiting('pod/ns/b', ['ns/claim-b', 'ns/shared'], false);
  w.waiting('pod/ns/c', ['ns/shared'], true); // unschedulable
  return w;
}

const change = (kind: string, name: string, object: Record<string, unknown> = {}, type: ChangeEvent['type'] = 'MODIFIED', namespace = 'ns'): ChangeEvent => ({
  type,
  rv: 1n,
  kind,
  namespace,
  name,
  object: { apiVersion: 'v1', kind, metadata: { name, namespace }, ...object },
}) as ChangeEvent;

const rows: [string, ChangeEvent, string[]][] = [
  ['a claim: the pods that use it', change('PersistentVolumeClaim', 'claim-a'), ['pod/ns/a']],
  ['a claim two pods use: both', change('PersistentVolumeClaim', 'shared'), ['pod/ns/b', 'pod/ns/c']],
  ['a claim no waiting pod uses: none', change('PersistentVolumeClaim', 'other'), []],
  ['a claim of the same name elsewhere: none', change('PersistentVolumeClaim', 'claim-a', {}, 'MODIFIED', 'ns2'), []],
  ['a volume bound to a claim: its pods and the unschedulable', change('PersistentVolume', 'pv-1', { spec: { claimRef: { namespace: 'ns', name: 'claim-b' } } }, 'MODIFIED', ''), ['pod/ns/b', 'pod/ns/c']],
  ['an unbound volume: the unschedulable', change('PersistentVolume', 'pv-2', { spec: {} }, 'ADDED', ''), ['pod/ns/c']],
  ['a node: the unschedulable', change('Node', 'n1', {}, 'MODIFIED', ''), ['pod/ns/c']],
  ['a class: the unschedulable', change('StorageClass', 'sc', {}, 'ADDED', ''), ['pod/ns/c']],
  ['published capacity: the unschedulable', change('CSIStorageCapacity', 'cap', {}, 'MODIFIED', 'kube-system'), ['pod/ns/c']],
  ['a new pod without a node: itself', change('Pod', 'd', { spec: {} }, 'ADDED'), ['pod/ns/d']],
  ['a pod placed elsewhere, never seen waiting: none', change('Pod', 'e', { spec: { nodeName: 'n1' } }), []],
  ['a waiting pod that got its node: itself, to be forgotten', change('Pod', 'a', { spec: { nodeName: 'n1' } }), ['pod/ns/a']],
  ['a pod deleted: itself and the unschedulable (it may free a claim)', change('Pod', 'x', {}, 'DELETED'), ['pod/ns/x', 'pod/ns/c']],
  ['a pod that finished: itself and the unschedulable', change('Pod', 'y', { spec: { nodeName: 'n1' }, status: { phase: 'Succeeded' } }), ['pod/ns/y', 'pod/ns/c']],
];

describe('placement keys for a change', () => {
  test.each(rows)('%s', (_name, e, want) => {
    expect(placementKeysFor(waiting(), e).sort()).toEqual([...want].sort());
  });

  test('a forgotten pod is no longer re-placed by its claims', () => {
    const w = waiting();
    w.forget('pod/ns/b');
    expect(w.podsUsing('ns/shared')).toEqual(['pod/ns/c']);
    expect(w.podsUsing('ns/claim-b')).toEqual([]);
    w.waiting('pod/ns/c', ['ns/shared'], false);
    expect(w.unschedulable()).toEqual([]);
  });
});
