import { expect, test } from 'vitest';
import { claimOf, fitModes, quantityOf, sizeProblem } from './claim-draft';

test.each([
  { size: '1', unit: 'Gi' as const, want: '1Gi' },
  { size: '1.5', unit: 'Gi' as const, want: '1536Mi' },
  { size: '1024', unit: 'Mi' as const, want: '1Gi' },
  { size: '0', unit: 'Gi' as const, want: '0' },
  { size: '1.25', unit: 'Gi' as const, want: '1280Mi' },
  { size: '500', unit: 'G' as const, want: '500G' },
  { size: 'x', unit: 'Gi' as const, want: '' },
])('$size$unit is asked for as "$want"', ({ size, unit, want }) => {
  expect(quantityOf({ size, unit })).toBe(want);
});

test.each([
  { name: 'below the plugin minimum', size: '1', unit: 'Mi' as const, min: String(300 << 20), want: /At least 300 MiB/ },
  { name: 'above the maximum', size: '2048', unit: 'Ti' as const, min: undefined, want: /At most 1 PiB/ },
  { name: 'zero', size: '0', unit: 'Gi' as const, min: undefined, want: /above zero/ },
  { name: 'negative', size: '-1', unit: 'Gi' as const, min: undefined, want: /not a number/ },
  { name: 'empty', size: '', unit: 'Gi' as const, min: undefined, want: /Enter a size/ },
])('size $name is refused', ({ size, unit, min, want }) => {
  expect(sizeProblem({ size, unit }, min)).toMatch(want);
});

test('a fine size has no problem', () => expect(sizeProblem({ size: '10', unit: 'Gi' })).toBeUndefined());

test('modes the class does not offer are dropped', () => {
  expect(fitModes(['ReadWriteMany', 'ReadWriteOnce'], ['ReadWriteOnce', 'ReadWriteOncePod'])).toEqual(['ReadWriteOnce']);
  expect(fitModes(['ReadWriteMany'], ['ReadWriteOnce'])).toEqual(['ReadWriteOnce']);
});

test('the claim names its class, even none', () => {
  const c = claimOf({ namespace: 'a', name: 'd', storageClassName: '', accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', size: '2', unit: 'Gi' });
  expect(c.spec).toEqual({ accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: { requests: { storage: '2Gi' } }, storageClassName: '' });
});
