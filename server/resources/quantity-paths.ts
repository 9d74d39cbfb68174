// Where the served kinds carry quantities (resource.Quantity upstream), as paths of an
// object's JSON: `*` is any key of a map. Used to read a quantity sent as a JSON number from
// the number's own text, as upstream's Quantity.UnmarshalJSON does. Pure.

export const quantityPathPatterns: readonly (readonly string[])[] = [
  ['spec', 'capacity', '*'], // PersistentVolume
  ['spec', 'resources', 'requests', '*'], // PersistentVolumeClaim
  ['spec', 'resources', 'limits', '*'],
  ['status', 'capacity', '*'], // PersistentVolumeClaim, Node
  ['status', 'allocatedResources', '*'],
  ['status', 'allocatable', '*'], // Node
  ['spec', 'hard', '*'], // ResourceQuota
  ['status', 'hard', '*'],
  ['status', 'used', '*'],
  ['status', 'restoreSize'], // VolumeSnapshot
  ['capacity'], // CSIStorageCapacity
  ['maximumVolumeSize'],
];

/**
 * Calls `visit` with each value found at a quantity path below `value`, which sits at `base`
 * (keys from the object's root): only the few patterns are followed, never the whole value.
 */
export function forEachAtQuantityPath(value: unknown, base: readonly string[], visit: (v: unknown, path: string[]) => void): void {
  for (const p of quantityPathPatterns) {
    if (p.length < base.length || !base.every((seg, i) => p[i] === '*' || p[i] === seg)) continue;
    follow(value, p.slice(base.length), [], visit);
  }
}

/** A JSON object (not an array, not null). */
export const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function follow(v: unknown, rest: readonly string[], at: string[], visit: (v: unknown, path: string[]) => void): void {
  if (rest.length === 0) return visit(v, at);
  if (!isMap(v)) return;
  const [seg, ...more] = rest;
  if (seg === '*') for (const k of Object.keys(v)) follow(v[k], more, [...at, k], visit);
  else if (Object.prototype.hasOwnProperty.call(v, seg)) follow(v[seg], more, [...at, seg], visit);
}
