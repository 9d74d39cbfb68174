import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { asSentence, NOT_LOOKED_AT, pendingHintOf, pendingReasonOf, withProvisioning } from './pending-reason';

function claim(annotation?: string, condition?: Record<string, string>, phase = 'Pending'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'default', annotations: annotation === undefined ? {} : { 'stowage.io/binding-explanation': annotation } },
    spec: {},
    status: { phase, conditions: condition ? [{ type: 'Bindable', status: 'False', ...condition }] : [] },
  };
}

const good = JSON.stringify({
  evaluatedAt: '2025-01-01T00:00:00Z',
  summary: 'No available volume matches this claim.',
  candidates: [{ name: 'pv-a', reasons: ['capacity 1Gi is less than the requested 5Gi', 'is Bound; only Available volumes are bound'] }],
});

describe('pendingReasonOf', () => {
  const cases: { name: string; obj: PersistentVolumeClaim; source: string; summary: string; candidates: number }[] = [
    { name: 'the annotation wins', obj: claim(good, { reason: 'NoMatchingVolume', message: 'from condition' }), source: 'explanation', summary: 'No available volume matches this claim.', candidates: 1 },
    { name: 'garbled JSON falls back to the condition', obj: claim('{nope', { message: 'from condition' }), source: 'condition', summary: 'from condition', candidates: 0 },
    { name: 'JSON without a summary falls back to the condition', obj: claim('{"candidates":[]}', { message: 'from condition' }), source: 'condition', summary: 'from condition', candidates: 0 },
    { name: 'nothing at all says the binder has not looked', obj: claim(), source: 'none', summary: NOT_LOOKED_AT, candidates: 0 },
    { name: 'candidates without names are dropped', obj: claim(JSON.stringify({ summary: 's', evaluatedAt: 'x', candidates: [{ reasons: ['a'] }, 7, { name: 'b', reasons: 'no' }] })), source: 'explanation', summary: 's', candidates: 1 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = pendingReasonOf(c.obj);
      expect(r.source).toBe(c.source);
      expect(r.summary).toBe(c.summary);
      expect(r.candidates).toHaveLength(c.candidates);
    });
  }

  it('keeps a valid evaluation time and drops a bad one', () => {
    expect(pendingReasonOf(claim(good)).evaluatedAt).toBe('2025-01-01T00:00:00Z');
    expect(pendingReasonOf(claim(JSON.stringify({ summary: 's', evaluatedAt: 'soon', candidates: [] }))).evaluatedAt).toBeUndefined();
  });

  it('writes the reasons as sentences', () => {
    expect(pendingReasonOf(claim(good)).candidates[0].reasons).toEqual([
      'Capacity 1Gi is less than the requested 5Gi.',
      'It is Bound; only Available volumes are bound.',
    ]);
  });
});

describe('asSentence', () => {
  for (const [input, want] of [
    ['access modes RWO do not include the requested RWX', 'Access modes RWO do not include the requested RWX.'],
    ['belongs to an earlier claim named a/b (uid 1), not to this one', 'It belongs to an earlier claim named a/b (uid 1), not to this one.'],
    ['Already a sentence.', 'Already a sentence.'],
  ]) {
    it(`${input} -> ${want}`, () => expect(asSentence(input)).toBe(want));
  }
});

describe('pendingHintOf', () => {
  it('is the summary for a Pending claim', () => expect(pendingHintOf(claim(good))).toBe('No available volume matches this claim.'));
  it('is nothing for a Bound claim', () => expect(pendingHintOf(claim(good, undefined, 'Bound'))).toBeUndefined());
  it('is nothing before the binder looked', () => expect(pendingHintOf(claim())).toBeUndefined());
});

describe('withProvisioning', () => {
  const waiting = pendingReasonOf(claim(JSON.stringify({ summary: 'Waiting for the provisioner; no volume comes near it.', candidates: [] }), { reason: 'WaitingForProvisioner' }));
  it.each([
    { name: 'a failure is the headline', latest: { reason: 'ProvisioningFailed', message: 'not enough space: 76797532 bytes free.' }, summary: 'Provisioning by stowage.io/host-path is failing: not enough space: 76797532 bytes free.', reason: 'ProvisioningFailed' },
    { name: 'a success or no event keeps the binder\'s words', latest: { reason: 'ExternalProvisioning', message: 'waiting' }, summary: 'Waiting for the provisioner; no volume comes near it.', reason: 'WaitingForProvisioner' },
    { name: 'no event at all', latest: undefined, summary: 'Waiting for the provisioner; no volume comes near it.', reason: 'WaitingForProvisioner' },
  ])('$name', ({ latest, summary, reason }) => {
    const r = withProvisioning(waiting, latest, 'stowage.io/host-path');
    expect(r.summary).toBe(summary);
    expect(r.reason).toBe(reason);
  });
});
