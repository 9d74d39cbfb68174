import { describe, expect, test } from 'vitest';
import { inUseSentence, reclaimSentence, type ClaimDeletion } from './delete-consequences';

describe('inUseSentence', () => {
  test.each([
    { usedBy: [], want: undefined },
    { usedBy: ['web-0'], want: 'In use by pod web-0: the claim stays Terminating (kubernetes.io/pvc-protection) until that pod is deleted or finished.' },
    {
      usedBy: ['a', 'b'],
      want: 'In use by pods a, b: the claim stays Terminating (kubernetes.io/pvc-protection) until those pods are deleted or finished.',
    },
  ])('usedBy=[$usedBy]', ({ usedBy, want }) => {
    expect(inUseSentence(usedBy)).toBe(want);
  });
});

const rows: (ClaimDeletion & { want: RegExp })[] = [
  { usedBy: [], want: /^The claim is not bound to a volume: no data is lost\.$/ },
  { usedBy: [], volumeName: 'pv1', policy: 'Delete', policySource: 'volume', want: /pv1 has reclaim policy Delete: .*all data on it are deleted/ },
  { usedBy: [], volumeName: 'pv1', policy: 'Delete', policySource: 'class', want: /Delete \(from its storage class\)/ },
  { usedBy: [], volumeName: 'pv1', policy: 'Retain', policySource: 'volume', want: /Retain: the volume and its data are kept \(Released\)/ },
  { usedBy: [], volumeName: 'pv1', policy: 'Recycle', policySource: 'volume', want: /Recycle \(deprecated\): its data is scrubbed/ },
  { usedBy: [], volumeName: 'pv1', want: /which you cannot see/ },
];

describe('reclaimSentence', () => {
  test.each(rows.map((r) => ({ ...r, name: `volume=${r.volumeName ?? '-'} policy=${r.policy ?? '?'} from=${r.policySource ?? '-'}` })))('$name', (r) => {
    expect(reclaimSentence(r)).toMatch(r.want);
  });
});
