import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import { capabilityProblems, planClaim, redactPlan, type PlanInput } from './claim-plan';
import type { Reader } from './redaction';

const claim = (modes = ['ReadWriteOnce'], size = '1Gi', volumeMode = 'Filesystem'): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'team-a' },
  spec: { accessModes: modes, volumeMode, resources: { requests: { storage: size } }, storageClassName: 'fast' },
});
const pv = (name: string, size: string, cls = 'fast'): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: cls, volumeMode: 'Filesystem' },
  status: { phase: 'Available' },
});
const sc = (provisioner: string, extra: Record<string, unknown> = {}): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner,
  ...extra,
});
const local = { accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'], volumeModes: ['Filesystem'] };
const base: PlanInput = { claim: claim(), className: 'fast', classNamed: true, near: [], inTree: false };

describe('planClaim', () => {
  const cases: { name: string; input: Partial<PlanInput>; outcome: string; summary: RegExp }[] = [
    { name: 'a matching volume binds now', input: { match: { volume: pv('v1', '2Gi'), prebound: false } }, outcome: 'binds', summary: /^Binds now to an existing volume of 2Gi/ },
    { name: 'in-tree class provisions on its node', input: { storageClass: sc('stowage.io/host-path'), inTree: true, node: 'n1', capabilities: local }, outcome: 'provisions', summary: /stowage\.io\/host-path on node n1/ },
    { name: 'external class provisions if running', input: { storageClass: sc('example.com/nfs') }, outcome: 'provisions', summary: /external provisioner example\.com\/nfs/ },
    { name: 'WaitForFirstConsumer provisions on first use', input: { storageClass: sc('stowage.io/host-path', { volumeBindingMode: 'WaitForFirstConsumer' }), inTree: true, node: 'n1' }, outcome: 'provisions', summary: /when a pod first uses it/ },
    { name: 'no-provisioner class sits Pending', input: { storageClass: sc('kubernetes.io/no-provisioner') }, outcome: 'pending', summary: /cannot provision one/ },
    {
      name: 'static WaitForFirstConsumer class with fitting volumes binds on first use',
      input: { storageClass: sc('kubernetes.io/no-provisioner', { volumeBindingMode: 'WaitForFirstConsumer' }), laterMatches: { volumes: 2, nodes: ['n1', 'n2'] } },
      outcome: 'binds',
      summary: /^Binds when a pod first uses it: 2 existing volumes fit on nodes n1, n2/,
    },
    {
      name: 'static WaitForFirstConsumer class without fitting volumes sits Pending',
      input: { storageClass: sc('kubernetes.io/no-provisioner', { volumeBindingMode: 'WaitForFirstConsumer' }), laterMatches: { volumes: 0, nodes: [] } },
      outcome: 'pending',
      summary: /cannot provision one/,
    },
    { name: 'missing class sits Pending', input: {}, outcome: 'pending', summary: /"fast" does not exist/ },
    { name: 'no class and no default sits Pending', input: { className: '', classNamed: false }, outcome: 'pending', summary: /no default StorageClass/ },
    { name: 'unsupported access mode sits Pending', input: { claim: claim(['ReadWriteMany']), storageClass: sc('stowage.io/host-path'), inTree: true, capabilities: local }, outcome: 'pending', summary: /cannot make ReadWriteMany volumes/ },
  ];
  test.each(cases)('$name', ({ input, outcome, summary }) => {
    const plan = planClaim({ ...base, ...input });
    expect(plan.outcome).toBe(outcome);
    expect(plan.summary).toMatch(summary);
  });

  const btrfs = (mode?: string) => sc('stowage.io/btrfs', mode ? { volumeBindingMode: mode } : {});
  const pools = [
    { node: 'a', roomBytes: String(2 * 1024 ** 3) },
    { node: 'b', roomBytes: String(5 * 1024 ** 3) },
    { node: 'c', roomBytes: '0', problem: 'quotas are not enabled on /srv/pool' },
  ];
  test.each([
    { name: 'pool class, Immediate: the node with the most room', mode: undefined, size: '1Gi', pools, outcome: 'provisions', node: 'b', summary: /on node b, the one with the most room \(5Gi free/ },
    { name: 'pool class, Immediate: only one node fits', mode: undefined, size: '3Gi', pools, outcome: 'provisions', node: 'b', summary: /on node b/ },
    { name: 'pool class, WaitForFirstConsumer: depends on the pod, lists nodes with room', mode: 'WaitForFirstConsumer', size: '1Gi', pools, outcome: 'provisions', node: undefined, summary: /on the pod's node .* it fits on nodes b \(5Gi free\), a \(2Gi free\)\.$/ },
    { name: 'pool class: no node has room: Pending with each pool', mode: 'WaitForFirstConsumer', size: '10Gi', pools, outcome: 'pending', node: undefined, summary: /no node's pool has room for 10Gi \(b: 5Gi free for new volumes; a: 2Gi free for new volumes; c: quotas are not enabled/ },
    { name: 'pool class: no pool reported yet: Pending', mode: undefined, size: '1Gi', pools: [], outcome: 'pending', node: undefined, summary: /no node reports a pool for it yet/ },
  ])('$name', ({ mode, size, pools: p, outcome, node, summary }) => {
    const plan = planClaim({ ...base, claim: claim(['ReadWriteOnce'], size), storageClass: btrfs(mode), inTree: true, node: 'this-host', capabilities: local, pools: p });
    expect(plan.outcome).toBe(outcome);
    expect(plan.summary).toMatch(summary);
    if (plan.outcome === 'provisions') {
      expect(plan.node).toBe(node);
      expect(plan.pools?.map((x) => `${x.node}:${x.fits}`)).toEqual(['b:true', ...(size === '1Gi' ? ['a:true'] : ['a:false']), 'c:false']);
    }
  });

  test('the nearest volumes come with reasons', () => {
    const plan = planClaim({ ...base, claim: claim(['ReadWriteOnce'], '10Gi'), near: [pv('small', '5Gi')] });
    expect(plan).toMatchObject({ outcome: 'pending', nearCount: 1, nearest: [{ name: 'small', reasons: [expect.stringMatching(/5Gi/)] }] });
  });
});

describe('redactPlan', () => {
  const admin: Reader = { secrets: true, volumes: true, namespaces: 'all' };
  const viewer: Reader = { secrets: false, volumes: true, namespaces: 'all' };
  const dev: Reader = { secrets: false, volumes: false, namespaces: ['team-a'] };
  const labelled = (name: string, labels: Record<string, string>, claimRef?: { namespace: string; name: string }): PersistentVolume => {
    const v = pv(name, '20Gi');
    return { ...v, metadata: { name, labels }, spec: { ...v.spec, ...(claimRef ? { claimRef } : {}) }, status: { phase: claimRef ? 'Bound' : 'Available' } };
  };
  const selective: PersistentVolumeClaim = { ...claim(['ReadWriteOnce'], '10Gi'), spec: { ...claim().spec, resources: { requests: { storage: '10Gi' } }, selector: { matchLabels: { app: 'db' } } } };
  const pending = planClaim({
    ...base,
    claim: selective,
    near: [labelled('gold-disk', { tier: 'gold', owner: 'team-b-secret-project' }), labelled('taken', { app: 'db' }, { namespace: 'team-b', name: 'their-data' })],
  });
  const binds = planClaim({ ...base, match: { volume: pv('v1', '2Gi'), prebound: false } });

  test.each([
    { who: 'admin', r: admin, hidden: [], shown: ['gold-disk', 'tier=gold', 'team-b/their-data', 'v1'] },
    { who: 'viewer', r: viewer, hidden: [], shown: ['gold-disk', 'tier=gold', 'team-b/their-data', 'v1'] },
    { who: 'developer', r: dev, hidden: ['gold-disk', 'taken', 'tier=gold', 'team-b-secret-project', 'team-b', 'their-data', 'v1'], shown: ["its labels do not match the claim's selector app=db", 'another claim'] },
  ])('$who sees $shown, not $hidden', ({ r, hidden, shown }) => {
    const text = JSON.stringify([redactPlan(pending, r), redactPlan(binds, r)]);
    for (const h of hidden) expect(text).not.toContain(h);
    for (const s of shown) expect(text).toContain(s);
    // Counts and reasons stay.
    expect(redactPlan(pending, r)).toMatchObject({ outcome: 'pending', nearCount: 2 });
  });
});

test.each([
  { name: 'Block on a files-only plugin', c: claim(['ReadWriteOnce'], '1Gi', 'Block'), want: [/volumeMode Block/] },
  { name: 'below the minimum size', c: claim(['ReadWriteOnce'], '1Ki'), want: [/at least 1 MiB/] },
  { name: 'supported', c: claim(), want: [] },
])('capabilityProblems: $name', ({ c, want }) => {
  const got = capabilityProblems(c, 'p', { ...local, minBytes: String(1 << 20) });
  expect(got).toHaveLength(want.length);
  want.forEach((w, i) => expect(got[i]).toMatch(w));
});
