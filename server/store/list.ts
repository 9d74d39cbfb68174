// Listing one kind with namespace, label and field selectors and limit/continue pages.
// Equality label requirements and metadata.name/namespace are answered by SQL; the
// rest is filtered here. Each page is read in one snapshot with its resourceVersion.
import { StowageError } from '../domain/errors';
import { unstorable } from '../domain/untrusted';
import { parseLabelSelector } from '../domain/label-selector';
import { compileFieldSelector, matchesListOptions } from '../resources/selection';
import type { KubeObject, Strategy } from '../resources/types';
import type pg from 'pg';
import { inTransaction } from './pg';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
}

interface ContinueToken {
  rv: string;
  ns: string;
  name: string;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as ContinueToken;
    const text = (v: unknown) => typeof v === 'string' && !unstorable(v) && v.length <= 253;
    if (text(t.rv) && /^[0-9]{1,19}$/.test(t.rv) && text(t.ns) && text(t.name)) return t;
  } catch {
    // fall through
  }
  throw new StowageError('BadRequest', 'continue key is not valid: the continue token is malformed');
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t), 'utf8').toString('base64url');
}

export async function listObjects(pool: pg.Pool, s: Strategy, opts: ListOptions): Promise<ListResult> {
  // Postgres text cannot hold NUL: such a namespace names nothing, such a selector matches nothing sensible.
  if (unstorable(opts.labelSelector) || unstorable(opts.fieldSelector)) {
    throw new StowageError('BadRequest', 'a selector may not contain the NUL character');
  }
  if (unstorable(opts.namespace)) throw new StowageError('BadRequest', 'a namespace may not contain the NUL character');
  const selector = parseLabelSelector(opts.labelSelector ?? '');
  const fields = compileFieldSelector(s, opts.fieldSelector);
  const limit = opts.limit && opts.limit > 0 ? Math.floor(opts.limit) : undefined;
  const token = opts.continue ? decodeContinue(opts.continue) : undefined;

  const where: string[] = ['kind = $1'];
  const params: unknown[] = [s.kind];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (s.namespaced && opts.namespace) add('namespace = ?', opts.namespace);
  const equalLabels: Record<string, string> = {};
  // Whether every requirement is answered by SQL (then pages need no over-reading).
  let sqlOnly = !(selector as { nothing?: boolean }).nothing;
  for (const r of selector.requirements) {
    if ((r.operator === '=' || r.operator === '==' || (r.operator === 'In' && r.values.length === 1)) && r.values[0] !== undefined) {
      equalLabels[r.key] = r.values[0];
    } else {
      sqlOnly = false;
    }
  }
  if (Object.keys(equalLabels).length > 0) add('labels @> ?::jsonb', JSON.stringify(equalLabels));
  for (const f of fields) {
    if (f.operator !== '!=' && f.field === 'metadata.name') add('name = ?', f.value);
    else if (f.operator !== '!=' && f.field === 'metadata.namespace' && s.namespaced) add('namespace = ?', f.value);
    else sqlOnly = false;
  }

  return inTransaction(
    pool,
    async (tx) => {
      const head = await tx.$queryRawUnsafe<{ head: bigint | null; compacted: bigint | null }[]>(
        'SELECT (SELECT max(rv) FROM change_log) AS head, (SELECT compacted_rv FROM store_meta WHERE id = 1) AS compacted',
      );
      const h = head[0]?.head ?? 0n;
      const c = head[0]?.compacted ?? 0n;
      const rv = token?.rv ?? BigInt(h > c ? h : c).toString();
      const items: KubeObject[] = [];
      let after = token ? { ns: token.ns, name: token.name } : undefined;
      const batch = limit ? (sqlOnly ? limit : Math.min(Math.max(limit * 2, 100), 5000)) : 5000;
      let more = false;
      for (;;) {
        const p = [...params];
        let w = where.join(' AND ');
        if (after) {
          p.push(after.ns, after.name);
          w += ` AND (namespace, name) > ($${p.length - 1}, $${p.length})`;
        }
        p.push(batch + 1);
        // The JSON as text, parsed here: much cheaper than decoding it per column.
        const rows = await tx.$queryRawUnsafe<{ object: string; namespace: string; name: string }[]>(
          `SELECT object::text AS object, namespace, name FROM objects WHERE ${w} ORDER BY namespace, name LIMIT $${p.length}`,
          ...p,
        );
        const page = rows.slice(0, batch);
        for (const r of page) {
          if (limit && items.length >= limit) {
            more = true;
            break;
          }
          after = { ns: r.namespace, name: r.name };
          const o = JSON.parse(r.object) as KubeObject;
          if (sqlOnly || matchesListOptions(s, o, selector, fields)) items.push(o);
        }
        if (limit && items.length >= limit && rows.length > batch) more = true;
        if (more) break;
        if (rows.length <= batch) break;
      }
      const result: ListResult = { items, resourceVersion: rv };
      if (more && after) result.continue = encodeContinue({ rv, ns: after.ns, name: after.name });
      return result;
    },
    'REPEATABLE READ',
  );
}
