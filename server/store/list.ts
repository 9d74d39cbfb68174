// Listing one kind with namespace, label and field selectors and limit/continue pages.
// Equality label requirements and metadata.name/namespace are answered by SQL; the
// rest is filtered here.
//
// A list is the state as of one resourceVersion R, the settled head when its first page
// is read (change-feed.ts); the continue token carries R, so every page shows the same
// state. Commits run concurrently, so a page's snapshot may also hold changes after R:
// objects whose row is newer than R are shown as the change log had them at R (the
// newest change of that key at or below R; compaction keeps each key's newest row), and
// objects deleted after R come back the same way. Once R is compacted away, a continue
// answers 410 Expired with a fresh token, as upstream does.
import { StowageError } from '../domain/errors';
import { unstorable } from '../domain/untrusted';
import { parseLabelSelector } from '../domain/label-selector';
import { compileFieldSelector, matchesListOptions } from '../resources/selection';
import type { KubeObject, Strategy } from '../resources/types';
import type pg from 'pg';
import { compactedRv, GAP, settle } from './change-feed';
import { inTransaction, poolSql } from './pg';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult<T extends KubeObject = KubeObject> {
  items: T[];
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
    if (text(t.rv) && /^\d{1,18}$/.test(t.rv) && text(t.ns) && text(t.name)) return t;
  } catch {
    // fall through
  }
  throw new StowageError('BadRequest', 'continue key is not valid: the continue token is malformed');
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t), 'utf8').toString('base64url');
}

/** Upstream's answer to a continue token whose snapshot is compacted: 410 with a fresh token. */
function continueExpired(token: ContinueToken, fresh: bigint): StowageError {
  return new StowageError(
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    { continue: encodeContinue({ rv: fresh.toString(), ns: token.ns, name: token.name }) },
  );
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
    } else if (r.operator === 'Exists') {
      // The jsonb `?` operator, written out: `add` would take it for the placeholder.
      params.push(r.key);
      where.push(`labels ? $${params.length}`);
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

  const nsFilter = s.namespaced && opts.namespace ? opts.namespace : undefined;
  const sql = poolSql(pool);
  const at = token ? BigInt(token.rv) : (await settle(sql)).head;
  const rv = at.toString();

  return inTransaction(
    pool,
    async (tx) => {
      // A snapshot already compacted away cannot be shown: 410 with a token that continues
      // from the oldest version still kept (checked in the page's own snapshot).
      if (token) {
        const horizon = await compactedRv(tx);
        if (at < horizon) throw continueExpired(token, horizon);
      }
      const items: KubeObject[] = [];
      let after = token ? { ns: token.ns, name: token.name } : undefined;
      const batch = limit ? (sqlOnly ? limit : Math.min(Math.max(limit * 2, 100), 5000)) : 5000;
      let more = false;
      for (;;) {
        const p = [...params, rv];
        const rvParam = `$${p.length}`;
        let w = `${where.join(' AND ')} AND resource_version <= ${rvParam}`;
        let changed = `kind = $1 AND rv > ${rvParam}`;
        if (nsFilter !== undefined) {
          p.push(nsFilter);
          changed += ` AND namespace = $${p.length}`;
        }
        const past = `type <> 'DELETED' AND type <> '${GAP}'`;
        if (after) {
          p.push(after.ns, after.name);
          const key = ` AND (namespace, name) > ($${p.length - 1}, $${p.length})`;
          w += key;
          changed += key;
        }
        p.push(batch + 1);
        // Rows unchanged since R from objects; rows changed since R as the log had them at R.
        // The JSON as text, parsed here: much cheaper than decoding it per column. Each part
        // is ordered and limited on its own (the page is within the first rows of each): under
        // one ORDER BY ... LIMIT over the union, Postgres sorted every row of the kind for each
        // page instead of reading the name index in order (3.5 s a page at a million volumes).
        const rows = await tx.$queryRawUnsafe<{ object: string; namespace: string; name: string; past: boolean }[]>(
          `WITH ch AS (SELECT DISTINCT namespace, name FROM change_log WHERE ${changed}),
           old AS (
             SELECT DISTINCT ON (c.namespace, c.name) c.namespace, c.name, c.type, c.object::text AS object
               FROM change_log c JOIN ch ON ch.namespace = c.namespace AND ch.name = c.name
              WHERE c.kind = $1 AND c.rv <= ${rvParam}
              ORDER BY c.namespace, c.name, c.rv DESC)
           SELECT object, namespace, name, past FROM (
             (SELECT object::text AS object, namespace, name, false AS past FROM objects WHERE ${w}
               ORDER BY namespace, name LIMIT $${p.length})
             UNION ALL
             (SELECT object, namespace, name, true AS past FROM old WHERE ${past}
               ORDER BY namespace, name LIMIT $${p.length})) page
           ORDER BY namespace, name LIMIT $${p.length}`,
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
          if ((sqlOnly && !r.past) || matchesListOptions(s, o, selector, fields)) items.push(o);
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
