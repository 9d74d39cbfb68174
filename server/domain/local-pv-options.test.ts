import { describe, expect, test } from 'vitest';
import { defaultLocalPvOptions, parseLocalPvOptions } from './local-pv-options';

describe('parseLocalPvOptions (upstream ProvisionerConfiguration keys)', () => {
  test.each([
    { name: 'no keys: the defaults', data: undefined, want: defaultLocalPvOptions },
    { name: 'only storageClassMap: the defaults', data: { storageClassMap: 'x: {}' }, want: defaultLocalPvOptions },
    { name: 'node labels as a YAML list', data: { nodeLabelsForPV: '- topology.kubernetes.io/zone\n- rack' }, want: { ...defaultLocalPvOptions, nodeLabelsForPV: ['topology.kubernetes.io/zone', 'rack'] } },
    { name: 'a repeated node label once', data: { nodeLabelsForPV: '[rack, rack]' }, want: { ...defaultLocalPvOptions, nodeLabelsForPV: ['rack'] } },
    { name: 'labels as a YAML map; numbers and booleans as text', data: { labelsForPV: 'team: storage\ntier: 1\nfast: true' }, want: { ...defaultLocalPvOptions, labelsForPV: { team: 'storage', tier: '1', fast: 'true' } } },
    { name: '__proto__ is read as a key (and refused: not a label key), never as a prototype', data: { labelsForPV: '__proto__: x' }, errField: 'labelsForPV[__proto__]' },
    { name: 'owner reference and node name only', data: { setPVOwnerRef: 'true', useNodeNameOnly: 'false' }, want: { ...defaultLocalPvOptions, setPVOwnerRef: true } },
    { name: 'a boolean that is not one', data: { setPVOwnerRef: 'yes please' }, errField: 'setPVOwnerRef' },
    { name: 'node labels not a list', data: { nodeLabelsForPV: 'zone: a' }, errField: 'nodeLabelsForPV' },
    { name: 'a bad node label key', data: { nodeLabelsForPV: '- "bad key"' }, errField: 'nodeLabelsForPV[0]' },
    { name: 'a bad label value', data: { labelsForPV: 'team: "has space"' }, errField: 'labelsForPV[team]' },
    { name: 'labels not a map', data: { labelsForPV: '- a' }, errField: 'labelsForPV' },
    { name: 'broken YAML', data: { labelsForPV: 'a: [' }, errField: 'labelsForPV' },
  ])('$name', ({ data, want, errField }) => {
    const r = parseLocalPvOptions(data as Record<string, string> | undefined);
    if (errField) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.map((e) => e.field)).toContain(errField);
    } else {
      expect(r).toEqual({ ok: true, options: want });
    }
  });

  test('a label named constructor is a label like any other', () => {
    const r = parseLocalPvOptions({ labelsForPV: 'constructor: x' });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.options.labelsForPV).toEqual({ constructor: 'x' });
  });
});
