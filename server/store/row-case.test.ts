import { describe, expect, test } from 'vitest';
import { camelCaseOf, camelRow } from './row-case';

describe('camelCaseOf', () => {
  test.each([
    ['node_name', 'nodeName'],
    ['next_attempt_at', 'nextAttemptAt'],
    ['id', 'id'],
    ['pv_uid', 'pvUid'],
    ['capacity_bytes', 'capacityBytes'],
    ['claim_2_uid', 'claim2Uid'],
  ])('%s -> %s', (from, want) => {
    expect(camelCaseOf(from)).toBe(want);
  });
});

describe('camelRow', () => {
  test('renames every column and keeps every value as it is', () => {
    const at = new Date(0);
    const details = { path: '/d' };
    const row = camelRow({ pv_name: 'pv-1', claim_uid: null, created_at: at, details, eligible: false });
    expect(row).toEqual({ pvName: 'pv-1', claimUid: null, createdAt: at, details, eligible: false });
    expect(row.createdAt).toBe(at);
    expect(row.details).toBe(details);
  });
});
