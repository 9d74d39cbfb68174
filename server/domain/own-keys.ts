// Maps built from user input hold keys such as `__proto__`, `constructor` and `prototype`
// as plain data. Reading through the prototype chain (`k in o`, `o[k]`) or writing with
// `o[k] = v` (which for `__proto__` calls the prototype setter) turns such a key into a
// change of an object's prototype, or of a built-in shared by the whole process. These
// helpers read and write own properties only.

export type PlainMap = Record<string, unknown>;

export function isPlainMap(v: unknown): v is PlainMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function hasOwn(o: object, key: string): boolean {
  return Object.hasOwn(o, key);
}

/** `o[key]` when `key` is an own property of `o`, else undefined. */
export function getOwn<T = unknown>(o: object, key: string): T | undefined {
  return Object.hasOwn(o, key) ? ((o as PlainMap)[key] as T) : undefined;
}

/** Sets `key` as an own, enumerable data property, whatever the key is. */
export function setOwn(o: object, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (o as PlainMap)[key] = value;
  }
}

/** A shallow copy of a map's own enumerable properties (as `{...o}`, which defines, never sets). */
export function copyMap(o: PlainMap): PlainMap {
  return { ...o };
}
