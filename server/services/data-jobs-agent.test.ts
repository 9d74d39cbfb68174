import { describe, expect, it } from 'vitest';
import { DATA_JOB_KEY_RE } from './data-jobs-agent';

describe('DATA_JOB_KEY_RE', () => {
  it.each([
    ['backup/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', true],
    ['restore/pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', true],
    ['replica-send/pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0_node-b_12', true],
    ['replica-remove/pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0_node.example_fence-3', true],
    ['replica-send/pvc-1/node-b/12', false],
    ['mystery/thing', false],
    ['backup/', false],
    ['backup/-x', false],
    [`backup/${'a'.repeat(513)}`, false],
  ])('%s -> %s', (key, ok) => {
    expect(DATA_JOB_KEY_RE.test(key)).toBe(ok);
  });
});
