// Rows come back from Postgres with the columns' snake_case names; the store's records use
// camelCase. One mapper renames them (typed: `node_name: string` becomes
// `nodeName: string`); a module then converts only what needs more than a new name
// (dates, JSON, defaults). Every column the query returns is copied: a query names its
// columns, or reads a table whose columns its row type lists.

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A row type with its keys in camelCase. */
export type Camelized<R> = { [K in keyof R as K extends string ? CamelCase<K> : K]: R[K] };

/** `node_name` → `nodeName`, `a_b_c` → `aBC`; a name without underscores stays as it is. */
export function camelCaseOf(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A row with its columns renamed to camelCase (values as they are). */
export function camelRow<R extends object>(row: R): Camelized<R> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[camelCaseOf(k)] = v;
  return out as Camelized<R>;
}
