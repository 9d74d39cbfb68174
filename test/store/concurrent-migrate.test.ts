// Several replicas starting at once on one empty external database: each runs the
// migrations, and they must take turns (no "relation already exists", no double apply).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ensureDatabase } from '../../server/store/database';
import { migrate } from '../../server/store/migrate';
import { rawQuery } from '../db';

describe('migrate on one database from several processes at once', () => {
  it('applies each migration once; every caller succeeds', async () => {
    const url = await ensureDatabase(inject('pgBaseUrl'), `m_${randomBytes(6).toString('hex')}`);
    const results = await Promise.allSettled([migrate(url), migrate(url), migrate(url)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const applied = results.map((r) => (r.status === 'fulfilled' ? r.value : []));
    const total = applied.reduce((n, a) => n + a.length, 0);
    const rows = await rawQuery<{ migration_name: string; n: string }>(
      url,
      'SELECT migration_name, count(*)::text AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL GROUP BY migration_name',
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.n === '1')).toBe(true);
    // Exactly one caller applied them; the others found the database up to date.
    expect(total).toBe(rows.length);
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
  }, 120_000);
});
