// Users, the namespaces each may use, and their API and session tokens (tables users,
// namespace_bindings, api_tokens). Passwords and token secrets arrive already hashed.
import { randomUUID } from 'node:crypto';
import { inTransaction } from './pg';
import { poolOf, sqlOf, type Pooled } from './sql-handle';
import { camelRow } from './row-case';

export interface UserAccount {
  id: string;
  name: string;
  role: string;
  passwordHash: string | null;
  /** The namespaces bound to the user, in name order. */
  namespaces: string[];
}

/** An API token as its owner and admins see it: never its secret or hash. */
export interface TokenInfo {
  id: string;
  name: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export interface AccountToken {
  kind: string;
  name: string;
  expiresAt: Date | null;
  user: UserAccount;
}

interface UserRow {
  id: string;
  name: string;
  role: string;
  password_hash: string | null;
  namespaces: string[] | null;
}

const USER_COLUMNS = `u.id::text AS id, u.name, u.role, u.password_hash,
  ARRAY(SELECT b.namespace FROM namespace_bindings b WHERE b.user_id = u.id ORDER BY b.namespace COLLATE "C") AS namespaces`;

const toAccount = (r: UserRow): UserAccount => ({ ...camelRow(r), namespaces: r.namespaces ?? [] });

export class UserAccounts {
  constructor(private readonly store: Pooled) {}

  private get sql() {
    return sqlOf(this.store);
  }

  async count(): Promise<number> {
    const rows = await this.sql.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM users');
    return Number(rows[0]?.n ?? 0);
  }

  /** Creates a user with its namespaces in one transaction; undefined when the name is taken. */
  async create(u: { name: string; role: string; passwordHash: string; namespaces: string[] }): Promise<UserAccount | undefined> {
    return inTransaction(poolOf(this.store), async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
        `INSERT INTO users (id, name, role, password_hash) VALUES ($1::uuid, $2, $3, $4)
         ON CONFLICT (name) DO NOTHING RETURNING id::text AS id`,
        randomUUID(),
        u.name,
        u.role,
        u.passwordHash,
      );
      const id = rows[0]?.id;
      if (!id) return undefined;
      const namespaces = [...new Set(u.namespaces)];
      if (namespaces.length > 0) {
        await tx.$executeRawUnsafe('INSERT INTO namespace_bindings (user_id, namespace) SELECT $1::uuid, unnest($2::text[])', id, namespaces);
      }
      return { id, name: u.name, role: u.role, passwordHash: u.passwordHash, namespaces: namespaces.sort() };
    });
  }

  async byName(name: string): Promise<UserAccount | undefined> {
    const rows = await this.sql.$queryRawUnsafe<UserRow[]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.name = $1`, name);
    return rows[0] && toAccount(rows[0]);
  }

  /** Every user, in name order. */
  async list(): Promise<UserAccount[]> {
    const rows = await this.sql.$queryRawUnsafe<UserRow[]>(`SELECT ${USER_COLUMNS} FROM users u ORDER BY u.name`);
    return rows.map(toAccount);
  }

  /** Replaces a user's namespaces (one transaction). */
  async setNamespaces(userId: string, namespaces: string[]): Promise<void> {
    await inTransaction(poolOf(this.store), async (tx) => {
      await tx.$executeRawUnsafe('DELETE FROM namespace_bindings WHERE user_id = $1::uuid', userId);
      await tx.$executeRawUnsafe(
        'INSERT INTO namespace_bindings (user_id, namespace) SELECT $1::uuid, unnest($2::text[]) ON CONFLICT DO NOTHING',
        userId,
        [...new Set(namespaces)],
      );
    });
  }

  /** Stores a token (its hash only); returns its id. */
  async createToken(t: { userId: string; kind: string; name: string; tokenHash: string; expiresAt: Date | null }): Promise<string> {
    const id = randomUUID();
    await this.sql.$executeRawUnsafe(
      'INSERT INTO api_tokens (id, user_id, kind, name, token_hash, expires_at) VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6)',
      id,
      t.userId,
      t.kind,
      t.name,
      t.tokenHash,
      t.expiresAt,
    );
    return id;
  }

  async deleteToken(tokenHash: string): Promise<void> {
    await this.sql.$executeRawUnsafe('DELETE FROM api_tokens WHERE token_hash = $1', tokenHash);
  }

  /** The token with this hash and its user, or undefined. */
  async token(tokenHash: string): Promise<AccountToken | undefined> {
    const rows = await this.sql.$queryRawUnsafe<(UserRow & { kind: string; token_name: string; expires_at: Date | null })[]>(
      `SELECT t.kind, t.name AS token_name, t.expires_at, ${USER_COLUMNS}
         FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
      tokenHash,
    );
    const r = rows[0];
    return r && { kind: r.kind, name: r.token_name, expiresAt: r.expires_at, user: toAccount(r) };
  }

  /** Removes a user; its namespace bindings and tokens go with it (cascade). False when there was none. */
  async remove(userId: string): Promise<boolean> {
    return (await this.sql.$executeRawUnsafe('DELETE FROM users WHERE id = $1::uuid', userId)) > 0;
  }

  async setRole(userId: string, role: string): Promise<void> {
    await this.sql.$executeRawUnsafe('UPDATE users SET role = $2 WHERE id = $1::uuid', userId, role);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.sql.$executeRawUnsafe('UPDATE users SET password_hash = $2 WHERE id = $1::uuid', userId, passwordHash);
  }

  /** The user's tokens of one kind, newest first. */
  async tokensOf(userId: string, kind: string): Promise<TokenInfo[]> {
    const rows = await this.sql.$queryRawUnsafe<{ id: string; name: string; created_at: Date; expires_at: Date | null; last_used_at: Date | null }[]>(
      `SELECT id::text AS id, name, created_at, expires_at, last_used_at FROM api_tokens
        WHERE user_id = $1::uuid AND kind = $2 ORDER BY created_at DESC, id`,
      userId,
      kind,
    );
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, expiresAt: r.expires_at, lastUsedAt: r.last_used_at }));
  }

  /** How many tokens of one kind each user has, by user id (users without any are absent). */
  async tokenCounts(kind: string): Promise<Map<string, number>> {
    const rows = await this.sql.$queryRawUnsafe<{ user_id: string; n: number }[]>(
      'SELECT user_id::text AS user_id, count(*)::int AS n FROM api_tokens WHERE kind = $1 GROUP BY user_id',
      kind,
    );
    return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
  }

  /** Deletes one token of this user by id; the hash it had (for caches), or undefined when it is not theirs. */
  async deleteTokenOf(userId: string, tokenId: string): Promise<string | undefined> {
    const rows = await this.sql.$queryRawUnsafe<{ token_hash: string }[]>(
      'DELETE FROM api_tokens WHERE user_id = $1::uuid AND id = $2::uuid RETURNING token_hash',
      userId,
      tokenId,
    );
    return rows[0]?.token_hash;
  }

  /** Deletes the user's tokens of one kind; how many. */
  async deleteTokensOf(userId: string, kind: string): Promise<number> {
    return this.sql.$executeRawUnsafe('DELETE FROM api_tokens WHERE user_id = $1::uuid AND kind = $2', userId, kind);
  }
}
