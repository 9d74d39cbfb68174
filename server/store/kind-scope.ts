// A kind's strategy found by its name for a store read or write, and the namespace its
// objects are stored under ('' for a cluster-scoped kind, whatever the caller gave).
import { StowageError } from '../domain/errors';
import { strategyForKind } from '../resources/registry';
import type { Strategy } from '../resources/types';

/** The strategy of `kind`; a BadRequest for a name no kind is registered under. */
export function strategyOf(kind: unknown): Strategy {
  const s = typeof kind === 'string' ? strategyForKind(kind) : undefined;
  if (!s) throw new StowageError('BadRequest', `no kind "${String(kind ?? '')}" is registered`);
  return s;
}

/** The `namespace` column of an object of `s` named in `namespace`. */
export function nsOf(s: Strategy, namespace: string | undefined): string {
  return s.namespaced ? (namespace ?? '') : '';
}

/** One key per stored row (kind, namespace column, name): for maps of rows in memory. */
export function rowKey(kind: string, namespace: string, name: string): string {
  return `${kind}\u0000${namespace}\u0000${name}`;
}
