import { describe, expect, test } from 'vitest';
import { copyOnNode, type NodeCopy } from './node-copies';
import { replicationAnnotations, type ReplicaView } from './replication';

const now = new Date('2026-01-01T00:01:00Z');
const rep = (active: string, replicas: ReplicaView[]) => replicationAnnotations({ activeNode: active, epoch: 1, replicas });

describe('copyOnNode', () => {
  const cases: { name: string; node: string; pinned?: string | null; ann?: Record<string, string>; want: NodeCopy | undefined }[] = [
    { name: 'a pinned volume on this node: its only copy', node: 'n1', pinned: 'n1', want: { role: 'only' } },
    { name: 'a pinned volume on another node: none', node: 'n2', pinned: 'n1', want: undefined },
    { name: 'no pin, no replication: none', node: 'n1', pinned: null, want: undefined },
    {
      name: 'replicated, active here: the active copy and its live replica count',
      node: 'n1',
      ann: rep('n1', [
        { node: 'n2', state: 'InSync', lastSyncTime: '2026-01-01T00:00:50Z' },
        { node: 'n3', state: 'Fenced' },
      ]),
      want: { role: 'active', replicas: 1 },
    },
    {
      name: 'replicated, a replica here: its state and data age',
      node: 'n2',
      ann: rep('n1', [{ node: 'n2', state: 'Behind', lastSyncTime: '2026-01-01T00:00:00Z' }]),
      want: { role: 'replica', state: 'Behind', lastSyncTime: '2026-01-01T00:00:00Z', behindSeconds: 60 },
    },
    {
      name: 'a rebuilding replica: its progress, no data age',
      node: 'n2',
      ann: rep('n1', [{ node: 'n2', state: 'Rebuilding', progress: { doneBytes: '10', totalBytes: '100' } }]),
      want: { role: 'replica', state: 'Rebuilding', progress: { doneBytes: '10', totalBytes: '100' } },
    },
    { name: 'replicated elsewhere, a stale pin naming this node: none (the annotations decide)', node: 'n9', pinned: 'n9', ann: rep('n1', [{ node: 'n2', state: 'InSync' }]), want: undefined },
    { name: 'a broken replicas annotation: the active copy still counts', node: 'n1', ann: { 'replication.stowage.io/active-node': 'n1', 'replication.stowage.io/replicas': '{nope' }, want: { role: 'active', replicas: 0 } },
  ];
  test.each(cases)('$name', ({ node, pinned, ann, want }) => {
    expect(copyOnNode(node, pinned, ann, now)).toEqual(want);
  });
});
