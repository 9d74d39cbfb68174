import { describe, expect, it } from 'vitest';
import type { Pod } from './schema';
import { validatePodUpdate } from './validation';

const pod = (spec: Pod['spec']): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec });
const container = { name: 'c', image: 'busybox:1' };

describe('validatePodUpdate', () => {
  it('allows new images and added tolerations', () => {
    const prev = pod({ containers: [container], tolerations: [{ key: 'a', operator: 'Exists' }] });
    const next = pod({ containers: [{ ...container, image: 'busybox:2' }], tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }] });
    expect(validatePodUpdate(next, prev)).toEqual([]);
  });

  it('refuses a removed toleration', () => {
    const prev = pod({ containers: [container], tolerations: [{ key: 'a', operator: 'Exists' }] });
    expect(validatePodUpdate(pod({ containers: [container], tolerations: [] }), prev).map((e) => e.field)).toEqual(['spec']);
  });

  it('refuses, without throwing, a change of tolerations that are not a list (kept as sent)', () => {
    const prev = pod({ containers: [container], tolerations: 'x' });
    expect(validatePodUpdate(pod({ containers: [container], tolerations: 'y' }), prev).map((e) => e.field)).toEqual(['spec']);
    expect(validatePodUpdate(pod({ containers: [container], tolerations: 'x' }), prev)).toEqual([]);
  });
});
