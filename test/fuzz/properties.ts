// The properties every fuzz batch ends with: the server still answers its health probe,
// every stored object still passes its kind's strategy (shape, validation, the limits of
// every input), and Object.prototype (and Object, Function.prototype) carry nothing new.
import { expect } from 'vitest';
import { inspectUntrusted } from '../../server/domain/untrusted';
import { strategies } from '../../server/resources/registry';
import type { ObjectStore } from '../../server/store/object-store';

const protoNames = Object.getOwnPropertyNames(Object.prototype).sort();
const objectNames = Object.getOwnPropertyNames(Object).sort();
const functionNames = Object.getOwnPropertyNames(Function.prototype).sort();

export function expectPrototypesUntouched(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoNames);
  expect(Object.getOwnPropertyNames(Object).sort()).toEqual(objectNames);
  expect(Object.getOwnPropertyNames(Function.prototype).sort()).toEqual(functionNames);
}

/** Every stored object of every kind, re-validated; returns how many there were. */
export async function expectEverythingStoredValid(store: ObjectStore): Promise<number> {
  let n = 0;
  for (const s of strategies) {
    const { items } = await store.list(s.kind);
    for (const o of items) {
      n++;
      const where = `${s.kind} ${JSON.stringify(o.metadata?.namespace ?? '')}/${JSON.stringify(o.metadata?.name)}`;
      expect(inspectUntrusted(o), where).toBeUndefined();
      expect(s.validateShape(o), where).toEqual([]);
      expect(s.validate(o), where).toEqual([]);
    }
  }
  return n;
}

/** A metav1.Status as the REST API must answer every error. */
export function expectStatus(code: number, text: string, what: string): void {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: answered ${code} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  expect(body, what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code });
  expect(typeof body.message, what).toBe('string');
  expect(typeof body.reason, what).toBe('string');
}

/** Runs from the environment (`FUZZ_RUNS`), else the CI default. */
export function fuzzRuns(ciDefault: number): number {
  const v = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(v) && v > 0 ? v : ciDefault;
}
