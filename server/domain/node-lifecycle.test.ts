import { describe, expect, it } from 'vitest';
import { forbiddenNodeLabel, heartbeatConditions, identityLabels, isNodeReady, parseLabelList, staleDecision, type NodeCondition } from './node-lifecycle';

const now = new Date('2026-01-01T00:01:00Z');
const ready = (hb: string, status: NodeCondition['status'] = 'True'): NodeCondition => ({ type: 'Ready', status, lastHeartbeatTime: hb, lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('staleDecision', () => {
  it.each([
    { name: 'fresh heartbeat', conditions: [ready('2026-01-01T00:00:50Z')], created: undefined, action: 'none' },
    { name: 'heartbeat older than the grace period', conditions: [ready('2026-01-01T00:00:10Z')], created: undefined, action: 'markUnknown' },
    { name: 'already Unknown', conditions: [ready('2026-01-01T00:00:10Z', 'Unknown')], created: undefined, action: 'none' },
    { name: 'never reported, created long ago', conditions: [], created: '2026-01-01T00:00:00Z', action: 'markUnknown' },
    { name: 'never reported, just created', conditions: [], created: '2026-01-01T00:00:59Z', action: 'none' },
    { name: 'no timestamps at all', conditions: [], created: undefined, action: 'none' },
  ])('$name -> $action', ({ conditions, created, action }) => {
    expect(staleDecision({ metadata: { creationTimestamp: created }, status: { conditions } }, now, 40_000).action).toBe(action);
  });

  it('says when to look again', () => {
    const d = staleDecision({ status: { conditions: [ready('2026-01-01T00:00:50Z')] } }, now, 40_000);
    expect(d).toEqual({ action: 'none', recheckInMs: 30_100 });
  });
});

describe('heartbeatConditions', () => {
  it.each([
    { name: 'first heartbeat', before: [] as NodeCondition[], transition: '2026-01-01T00:01:00Z' },
    { name: 'still ready: transition kept', before: [ready('2026-01-01T00:00:50Z')], transition: '2026-01-01T00:00:00Z' },
    { name: 'back from Unknown: transition now', before: [ready('2026-01-01T00:00:10Z', 'Unknown')], transition: '2026-01-01T00:01:00Z' },
  ])('$name', ({ before, transition }) => {
    const after = heartbeatConditions(before, now);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:01:00Z', lastTransitionTime: transition });
    expect(isNodeReady({ status: { conditions: after } })).toBe(true);
  });
});

describe('parseLabelList', () => {
  it.each([
    { text: '', labels: {}, errors: 0 },
    { text: 'a=b', labels: { a: 'b' }, errors: 0 },
    { text: 'a=b, zone=z1 ', labels: { a: 'b', zone: 'z1' }, errors: 0 },
    { text: 'a=b,oops', labels: { a: 'b' }, errors: 1 },
    { text: '__proto__=x', labels: { ['__proto__']: 'x' }, errors: 0 },
  ])('"$text"', ({ text, labels, errors }) => {
    const r = parseLabelList(text);
    expect(Object.entries(r.labels)).toEqual(Object.entries(labels));
    expect(r.errors).toHaveLength(errors);
  });
});

describe('forbiddenNodeLabel (what node-a may set on itself)', () => {
  const placed = { 'topology.kubernetes.io/zone': 'a', 'failure-domain.beta.kubernetes.io/region': 'eu' };
  it.each([
    { key: 'kubernetes.io/hostname', value: 'node-a', current: {}, refused: false },
    { key: 'kubernetes.io/hostname', value: 'node-b', current: {}, refused: true },
    { key: 'kubernetes.io/os', value: 'linux', current: {}, refused: false },
    { key: 'kubernetes.io/arch', value: 'amd64', current: {}, refused: false },
    { key: 'node.kubernetes.io/instance-type', value: 'm5', current: {}, refused: false },
    { key: 'example.node.kubernetes.io/x', value: 'y', current: {}, refused: false },
    { key: 'kubelet.kubernetes.io/x', value: 'y', current: {}, refused: false },
    { key: 'disk', value: 'ssd', current: {}, refused: false },
    { key: 'example.com/rack', value: 'r1', current: {}, refused: false },
    { key: 'node-restriction.kubernetes.io/trusted', value: 'yes', current: {}, refused: true },
    { key: 'a.node-restriction.kubernetes.io/trusted', value: 'yes', current: {}, refused: true },
    { key: 'node-role.kubernetes.io/control-plane', value: '', current: {}, refused: true },
    { key: 'kubernetes.io/role', value: 'master', current: {}, refused: true },
    { key: 'example.k8s.io/x', value: 'y', current: {}, refused: true },
    { key: 'topology.kubernetes.io/zone', value: 'a', current: {}, refused: false },
    { key: 'topology.kubernetes.io/zone', value: 'a', current: placed, refused: false },
    { key: 'topology.kubernetes.io/zone', value: 'b', current: placed, refused: true },
    { key: 'failure-domain.beta.kubernetes.io/region', value: 'us', current: placed, refused: true },
    { key: 'topology.kubernetes.io/region', value: 'us', current: placed, refused: false },
  ])('$key=$value on a node with $current: refused $refused', ({ key, value, current, refused }) => {
    const why = forbiddenNodeLabel('node-a', key, value, current);
    if (refused) expect(why).toEqual(expect.any(String));
    else expect(why).toBeUndefined();
  });

  it('identity labels: the host name is the node name, whatever the node said', () => {
    expect(identityLabels('node-a', { 'kubernetes.io/hostname': 'node-b', disk: 'ssd' })).toEqual({ 'kubernetes.io/hostname': 'node-a', disk: 'ssd' });
    expect(identityLabels('node-a', undefined)).toEqual({ 'kubernetes.io/hostname': 'node-a' });
  });
});
