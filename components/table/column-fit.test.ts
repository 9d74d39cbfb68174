import { describe, expect, it } from 'vitest';
import { fitColumns, minWidthOf, neededWidth, trackOf } from './column-fit';

const cols = (...headers: string[]) => headers.map((header) => ({ header }));
const VOLUMES = cols('NAME', 'CAPACITY', 'USED', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'AGE');
const CLAIMS = cols('NAMESPACE', 'NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'USED', 'ACCESS MODES', 'STORAGECLASS', 'AGE');
const headers = (c: { header: string }[]) => c.map((x) => x.header);

describe('fitColumns: the least important columns hide first, the grid never overflows', () => {
  it.each([
    { name: 'volumes at a wide screen keep every column', columns: VOLUMES, width: 1600, hidden: [] },
    { name: 'volumes at 1280 (1046 px of table) lose the reclaim policy', columns: VOLUMES, width: 1046, hidden: ['RECLAIM POLICY'] },
    { name: 'volumes at 900 px lose the modes too', columns: VOLUMES, width: 900, hidden: ['ACCESS MODES', 'RECLAIM POLICY'] },
    { name: 'claims at 1280 lose the access modes', columns: CLAIMS, width: 1046, hidden: ['ACCESS MODES'] },
    { name: 'claims at 900 px lose the volume and the age too', columns: CLAIMS, width: 900, hidden: ['VOLUME', 'ACCESS MODES', 'AGE'] },
    { name: 'a narrow table keeps the name and the state', columns: VOLUMES, width: 320, hidden: ['CAPACITY', 'USED', 'ACCESS MODES', 'RECLAIM POLICY', 'CLAIM', 'STORAGECLASS', 'AGE'] },
    // The REPLICAS column goes right after the reclaim policy (before the access modes).
    { name: 'volumes with replicas at 1280 lose the reclaim policy and the replicas', columns: [...VOLUMES, ...cols('REPLICAS')], width: 1046, hidden: ['RECLAIM POLICY', 'REPLICAS'] },
    { name: 'volumes with replicas at 1440 (1206 px) keep the replicas, lose the reclaim policy', columns: [...VOLUMES, ...cols('REPLICAS')], width: 1206, hidden: ['RECLAIM POLICY'] },
    { name: 'claims with replicas at 1280 lose the modes and the replicas', columns: [...CLAIMS, ...cols('REPLICAS')], width: 1046, hidden: ['ACCESS MODES', 'REPLICAS'] },
    { name: 'claims with replicas at 1440 lose only the replicas', columns: [...CLAIMS, ...cols('REPLICAS')], width: 1206, hidden: ['REPLICAS'] },
    { name: 'claims with replicas at 1600 (1366 px) keep every column', columns: [...CLAIMS, ...cols('REPLICAS')], width: 1366, hidden: [] },
    { name: 'not measured yet: all of them', columns: VOLUMES, width: 0, hidden: [] },
    { name: 'too narrow even for the name: the name stays', columns: cols('NAME', 'AGE'), width: 50, hidden: ['AGE'] },
  ])('$name', ({ columns, width, hidden }) => {
    const shown = fitColumns(columns, width);
    expect(headers(columns).filter((h) => !headers(shown).includes(h))).toEqual(hidden);
    // The order is kept, and what is shown fits (unless only the name is left).
    expect(headers(shown)).toEqual(headers(columns).filter((h) => !hidden.includes(h)));
    if (width > 0 && shown.length > 1) expect(neededWidth(shown, false)).toBeLessThanOrEqual(width);
  });

  it('a selection checkbox takes room too', () => {
    const width = neededWidth(cols('NAME', 'AGE'), false);
    expect(headers(fitColumns(cols('NAME', 'AGE'), width, false))).toEqual(['NAME', 'AGE']);
    expect(headers(fitColumns(cols('NAME', 'AGE'), width, true))).toEqual(['NAME']);
  });
});

describe('column tracks', () => {
  it.each([
    { c: { header: 'NAME' }, want: 'minmax(160px, 2.4fr)' },
    { c: { header: 'STATUS' }, want: 'minmax(100px, 0.8fr)' },
    { c: { header: 'REASON' }, want: 'minmax(170px, 1.2fr)' },
    { c: { header: 'RECLAIM POLICY' }, want: 'minmax(134px, 0.9fr)' },
    { c: { header: 'REPLICAS' }, want: 'minmax(120px, 120px)' },
    { c: { header: 'label:team', label: 'team' }, want: 'minmax(90px, 1fr)' },
    { c: { header: 'label:app.kubernetes.io/part-of', label: 'app.kubernetes.io/part-of' }, want: 'minmax(222px, 1fr)' },
  ])('$c.header: $want', ({ c, want }) => expect(trackOf(c)).toBe(want));

  it('never narrower than the header', () => expect(minWidthOf({ header: 'VOLUMEATTRIBUTESCLASS' })).toBe(21 * 8 + 22));
});
