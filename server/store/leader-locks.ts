// The Postgres side of leader election (controllers/runtime/leader-election.ts): a
// dedicated session holding a session-level advisory lock. Whoever holds the lock leads;
// Postgres releases it when the session ends. The session ends by itself when idle for a
// lease (idle_session_timeout) and, across a network partition, by TCP keepalives.
import pg from 'pg';

/** The two int4 keys of pg_try_advisory_lock(int, int). */
export type LockKeys = [number, number];

export class LeaderLockSession {
  private constructor(private readonly client: pg.Client) {}

  /**
   * Opens a session of its own (not from the store's pool). `onError` hears of the session
   * failing after it was opened (the lock is then gone with it).
   */
  static async open(connectionString: string, leaseDurationMs: number, onError: (err: Error, session: LeaderLockSession) => void): Promise<LeaderLockSession> {
    const c = new pg.Client({ connectionString, keepAlive: true });
    const session = new LeaderLockSession(c);
    c.on('error', (err) => onError(err, session));
    await c.connect();
    const lease = Math.max(1000, Math.round(leaseDurationMs));
    const keepalive = Math.max(1, Math.round(lease / 3000));
    await c.query(`SET application_name = 'stowage-leader-election'`);
    // Best effort: older servers lack idle_session_timeout; some hosts refuse keepalive settings.
    for (const sql of [
      `SET idle_session_timeout = ${lease}`,
      `SET tcp_keepalives_idle = ${keepalive}`,
      `SET tcp_keepalives_interval = ${keepalive}`,
      'SET tcp_keepalives_count = 3',
    ]) {
      await c.query(sql).catch(() => {});
    }
    return session;
  }

  /** Takes the lock if no other session holds it; true when this session holds it now. */
  async tryLock(keys: LockKeys): Promise<boolean> {
    const res = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', keys);
    return !!res.rows[0]?.ok;
  }

  /** A round trip on the session (fails when the session is gone). */
  async ping(): Promise<void> {
    await this.client.query('SELECT 1');
  }

  async unlock(keys: LockKeys): Promise<void> {
    await this.client.query('SELECT pg_advisory_unlock($1::int, $2::int)', keys);
  }

  end(): Promise<void> {
    return this.client.end();
  }
}
