import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import type { Node } from './schema';
import { isCIDR, nodeStrategy as strategy } from './strategy';

const node1: Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1', 'node-role.kubernetes.io/storage': '' } },
  spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], providerID: 'stowage://node-1' },
  status: {
    capacity: { storage: '100Gi', cpu: '4' },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2024-01-01T00:00:00Z' }],
    addresses: [
      { type: 'InternalIP', address: '192.168.1.10' },
      { type: 'Hostname', address: 'node-1' },
    ],
    nodeInfo: { kubeletVersion: 'stowage-agent/0.1.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: '', machineID: 'm' },
  },
};

const taint = (t: object) => ({ spec: { taints: [t] } });

describe('Node validation on create', () => {
  test.each<{ rule: string; node: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a registered node is valid', node: node1, want: [] },
    { rule: 'a bare node is valid', node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } }, want: [] },
    { rule: 'a taint with an effect is valid', node: patched(node1, taint({ key: 'example.com/disk', value: 'full', effect: 'NoSchedule' })), want: [] },
    { rule: 'a taint needs an effect', node: patched(node1, taint({ key: 'k' })), want: ['spec.taints[0].effect: Required value'] },
    { rule: 'the taint effect must be supported', node: patched(node1, taint({ key: 'k', effect: 'NoWay' })), want: ['spec.taints[0].effect: Unsupported value: "NoWay": supported values: "NoExecute", "NoSchedule", "PreferNoSchedule"'] },
    { rule: 'the taint key is a label name', node: patched(node1, taint({ key: 'a b', effect: 'NoSchedule' })), want: [/^spec\.taints\[0\]\.key: Invalid value: "a b": name part must consist/] },
    { rule: 'the taint value is a label value', node: patched(node1, taint({ key: 'k', value: 'a b', effect: 'NoSchedule' })), want: [/^spec\.taints\[0\]\.value: Invalid value: "a b": a valid label must be/] },
    {
      rule: 'taints are unique by key and effect',
      node: patched(node1, { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }] } }),
      want: [/^spec\.taints\[1\]: Duplicate value: .*: taints must be unique by key and effect pair$/],
    },
    { rule: 'the same key may taint with two effects', node: patched(node1, { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }] } }), want: [] },
    { rule: 'pod CIDRs must be CIDRs', node: patched(node1, { spec: { podCIDRs: ['10.244.1.0'] } }), want: ['spec.podCIDRs[0]: Invalid value: "10.244.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'] },
    { rule: 'dual-stack pod CIDRs are valid', node: patched(node1, { spec: { podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] } }), want: [] },
    { rule: 'one pod CIDR per IP family', node: patched(node1, { spec: { podCIDRs: ['10.244.1.0/24', '10.245.1.0/24'] } }), want: [/^spec\.podCIDRs: Invalid value: .*: may specify no more than one CIDR for each IP family$/] },
    { rule: 'capacity may not be negative', node: patched(node1, { status: { capacity: { storage: '-1Gi' } } }), want: ['status.capacity.storage: Invalid value: "-1Gi": must be greater than or equal to 0', 'status.allocatable.storage: Invalid value: "-1Gi": must be greater than or equal to 0'] },
    { rule: 'allocatable must parse', node: patched(node1, { status: { allocatable: { storage: 'much' } } }), want: [/^status\.allocatable\.storage: Invalid value: "much": quantities must match/] },
    { rule: 'addresses are unique', node: patched(node1, { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] } }), want: ['status.addresses[1]: Duplicate value: {"address":"10.0.0.1","type":"InternalIP"}'] },
    { rule: 'the name is a DNS subdomain', node: patched(node1, { metadata: { name: 'Node_1' } }), want: [/^metadata\.name: Invalid value: "Node_1": a lowercase RFC 1123 subdomain/] },
    { rule: 'nodes are cluster-scoped', node: patched(node1, { metadata: { namespace: 'default' } }), want: ['metadata.namespace: Forbidden: not allowed on this type'] },
    { rule: 'unknown spec fields are refused', node: patched(node1, { spec: { cordoned: true } }), want: ['spec.cordoned: unknown field "spec.cordoned"'] },
    { rule: 'unknown status fields are refused', node: patched(node1, { status: { disks: [] } }), want: ['status.disks: unknown field "status.disks"'] },
    { rule: 'nodeInfo is kept loose', node: patched(node1, { status: { nodeInfo: { swap: { capacity: 0 }, futureField: 'x' } } }), want: [] },
  ])('$rule', ({ node, want }) => {
    const got = lines(createErrors(strategy, node));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test.each([
    ['10.0.0.0/8', true],
    ['0.0.0.0/0', true],
    ['2001:db8::/64', true],
    ['::/0', true],
    ['10.0.0.256/8', false],
    ['10.0.0.0/33', false],
    ['2001:db8::1::/64', false],
    ['example.com/24', false],
  ])('isCIDR(%s) = %s', (value, want) => {
    expect(isCIDR(value)).toBe(want);
  });
});

describe('Node defaults, preparation and updates', () => {
  test('allocatable defaults to capacity, canonicalised', () => {
    const node = patched(node1, { status: { capacity: { storage: '102400Mi' } } });
    strategy.applyDefaults(node);
    expect(node.status?.allocatable).toEqual({ storage: '100Gi', cpu: '4' });
  });

  test('create keeps the status a node registers with', () => {
    const node = structuredClone(node1);
    strategy.prepareForCreate(node);
    expect(node.status?.conditions?.[0].type).toBe('Ready');
  });

  test('an update keeps the stored status', () => {
    const prev = created(strategy, node1);
    const next = patched(prev, { status: { conditions: [] }, spec: { unschedulable: true } });
    strategy.prepareForUpdate(next, prev);
    expect(next.status?.conditions).toHaveLength(1);
    expect(next.spec?.unschedulable).toBe(true);
  });

  const stored = created(strategy, node1);
  const fresh = created(strategy, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'fresh' } });
  test.each([
    { rule: 'a node may be cordoned and tainted', prev: stored, change: { spec: { unschedulable: true, taints: [{ key: 'k', effect: 'NoSchedule' }] } }, want: [] },
    { rule: 'pod CIDRs may not change once set', prev: stored, change: { spec: { podCIDRs: ['10.244.9.0/24'] } }, want: ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'] },
    { rule: 'pod CIDRs may be assigned once', prev: fresh, change: { spec: { podCIDRs: ['10.244.9.0/24'] } }, want: [] },
    { rule: 'the provider ID may not change once set', prev: stored, change: { spec: { providerID: 'other://x' } }, want: ['spec.providerID: Forbidden: node updates may not change providerID except from "" to valid'] },
    { rule: 'the provider ID may be set once', prev: fresh, change: { spec: { providerID: 'stowage://fresh' } }, want: [] },
    { rule: 'the external ID may not be updated', prev: stored, change: { spec: { externalID: 'x' } }, want: ['spec.externalID: Forbidden: may not be updated'] },
  ])('$rule', ({ prev, change, want }) => {
    expect(lines(updateErrors(strategy, prev, patched(prev, change)))).toEqual(want);
  });
});

describe('Node columns, table and selectors', () => {
  const now = new Date('2024-01-03T00:00:00Z');

  test('a node indexes its own name', () => {
    expect(strategy.columns(created(strategy, node1)).nodeName).toBe('node-1');
  });

  test('columns are the ones kubectl prints', () => {
    expect(strategy.table.columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
  });

  test.each<{ rule: string; node: KubeObject; want: unknown[] }>([
    { rule: 'a ready storage node', node: node1, want: ['node-1', 'Ready', 'storage', '2d', 'stowage-agent/0.1.0', '192.168.1.10', '<none>', 'Debian GNU/Linux 12', '6.1.0', '<unknown>'] },
    {
      rule: 'a cordoned node that is not ready',
      node: patched(node1, { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      want: ['node-1', 'NotReady,SchedulingDisabled', 'storage', '2d', 'stowage-agent/0.1.0', '192.168.1.10', '<none>', 'Debian GNU/Linux 12', '6.1.0', '<unknown>'],
    },
    {
      rule: 'a node that never reported',
      node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { 'kubernetes.io/role': 'master', 'node-role.kubernetes.io/control-plane': '' } } },
      want: ['n2', 'Unknown', 'control-plane,master', '2d', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>'],
    },
  ])('$rule', ({ node, want }) => {
    expect(strategy.table.row(created(strategy, node), now)).toEqual(want);
  });

  test('spec.unschedulable is selectable as "true" or "false"', () => {
    expect(strategy.fieldSelectors['spec.unschedulable'](node1)).toBe('false');
    expect(strategy.fieldSelectors['spec.unschedulable'](patched(node1, { spec: { unschedulable: true } }))).toBe('true');
  });
});
