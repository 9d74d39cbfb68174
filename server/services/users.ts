// Users, their namespaces, passwords (bcrypt) and tokens (random secrets stored as
// sha256). The dashboard session is a token of kind "session" with an expiry.
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/bcrypt';
import { ROLES, type Role, type UserPrincipal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isDNS1123Label } from '../domain/names';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from '../domain/sign-in-limits';
import { unstorable } from '../domain/untrusted';
import type { ObjectStore } from '../store/object-store';
import { UserAccounts, type UserAccount } from '../store/user-accounts';
import { SignInGuard } from './sign-in-guard';
import { TokenCache } from './token-cache';

/** bcrypt cost of new password hashes (hashes made with bcryptjs at the same cost verify unchanged). */
const COST = 10;
/**
 * A bcrypt hash (cost COST) of a random password nobody kept: an unknown name is checked
 * against it, so that it costs as much as a known name with a wrong password.
 */
const DUMMY_HASH = '$2b$10$hbq6x2Ady9DqPTuH2Wygo.cIIChxYF9hJWX8bfsxXyCNdOCcEKx.i';

export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

export interface NewUser {
  name: string;
  role: string;
  namespaces?: string[];
  password?: string;
}

function toPrincipal(u: UserAccount): UserPrincipal {
  return { type: 'user', id: u.id, name: u.name, role: u.role as Role, namespaces: [...u.namespaces].sort() };
}

/**
 * How long a token's user stays known without asking the database again. Every API request
 * authenticates, and the lookup was the single biggest cost of a small request. Revoking a
 * token or changing a user's namespaces in this process takes effect at once; in another
 * process (the CLI) within this time, as upstream's token-review cache does.
 */
export const AUTH_CACHE_MS = 2_000;

export class UserService {
  readonly guard: SignInGuard;
  /** Recently authenticated tokens by hash (successes only). */
  private readonly recent = new TokenCache<UserPrincipal>(AUTH_CACHE_MS);

  private readonly accounts: UserAccounts;

  constructor(store: ObjectStore, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    this.accounts = new UserAccounts(store);
    this.guard = new SignInGuard(limits);
  }


  async count(): Promise<number> {
    return this.accounts.count();
  }

  /** Creates a user; returns it with the password that was set (generated if not given). */
  async create(input: NewUser): Promise<{ user: UserPrincipal; password: string }> {
    const errors: string[] = [];
    if (!/^[a-z0-9]([-a-z0-9_.@]*[a-z0-9])?$/i.test(input.name) || input.name.length > 63) {
      errors.push(`user name "${input.name}" must be 1-63 letters, digits, '-', '_', '.', '@', starting and ending with a letter or digit`);
    }
    if (!ROLES.includes(input.role as Role)) errors.push(`role "${input.role}" must be one of ${ROLES.join(', ')}`);
    for (const ns of input.namespaces ?? []) {
      const bad = isDNS1123Label(ns);
      if (bad.length) errors.push(`namespace "${ns}": ${bad.join('; ')}`);
    }
    if (input.password !== undefined && input.password.length < 8) errors.push('password must have at least 8 characters');
    if (errors.length) throw new StowageError('BadRequest', errors.join('; '));
    const password = input.password ?? generatePassword();
    const passwordHash = await hash(password, { cost: COST });
    const u = await this.accounts.create({ name: input.name, role: input.role, passwordHash, namespaces: input.namespaces ?? [] });
    if (!u) throw new StowageError('AlreadyExists', `user "${input.name}" already exists`);
    return { user: toPrincipal(u), password };
  }

  async byName(name: string): Promise<UserPrincipal | undefined> {
    const u = await this.accounts.byName(name);
    return u ? toPrincipal(u) : undefined;
  }

  async list(): Promise<UserPrincipal[]> {
    return (await this.accounts.list()).map(toPrincipal);
  }

  async setNamespaces(name: string, namespaces: string[]): Promise<UserPrincipal> {
    const u = await this.byName(name);
    if (!u) throw new StowageError('NotFound', `user "${name}" not found`);
    await this.accounts.setNamespaces(u.id, namespaces);
    this.recent.forget();
    return (await this.byName(name))!;
  }

  /**
   * Checks a password: the same error, and the same time, whether the user or the
   * password is wrong (an unknown name is checked against a dummy hash). Wrong passwords
   * slow that name from that client address (429 with Retry-After while it must wait; see
   * domain/sign-in-limits), and the hashing runs
   * off the main thread with a bound on how many run at once.
   */
  async signIn(name: string, password: string, address?: string): Promise<UserPrincipal> {
    const attempt = this.guard.begin(name, address);
    // The lookup and the check both wait for a slot, so a flood neither hashes nor queries at once.
    const u = await this.guard.limit(async () => {
      // No user name holds NUL or a lone surrogate, and Postgres cannot compare one.
      const found = unstorable(name) ? null : await this.accounts.byName(name);
      const ok = await verify(password, found?.passwordHash || DUMMY_HASH);
      return ok && found?.passwordHash ? found : undefined;
    });
    if (!u) throw new StowageError('Unauthorized', 'wrong user name or password');
    attempt.succeeded();
    return toPrincipal(u);
  }

  /** Issues a new secret token for a user; only its hash is stored. */
  async createToken(userName: string, opts: { kind?: 'api' | 'session'; name?: string; ttlMs?: number } = {}): Promise<string> {
    return (await this.issueToken(userName, opts)).secret;
  }

  /** As `createToken`, with the new token's id. */
  async issueToken(userName: string, opts: { kind?: 'api' | 'session'; name?: string; ttlMs?: number } = {}): Promise<{ id: string; secret: string }> {
    const u = await this.byName(userName);
    if (!u) throw new StowageError('NotFound', `user "${userName}" not found`);
    const secret = `${opts.kind === 'session' ? 'sws' : 'swt'}_${randomBytes(24).toString('base64url')}`;
    const id = await this.accounts.createToken({
      userId: u.id,
      kind: opts.kind ?? 'api',
      name: opts.name ?? '',
      tokenHash: hashToken(secret),
      expiresAt: opts.ttlMs ? new Date(Date.now() + opts.ttlMs) : null,
    });
    return { id, secret };
  }

  /** Forgets every recently authenticated token, so a revoke or a role change applies at once here. */
  forgetAuthenticated(): void {
    this.recent.forget();
  }

  async revokeToken(secret: string): Promise<void> {
    const tokenHash = hashToken(secret);
    const isIt = (_: UserPrincipal, h: string) => h === tokenHash;
    this.recent.forget(isIt);
    await this.accounts.deleteToken(tokenHash);
    this.recent.forget(isIt);
  }

  /** The user a bearer or session token acts as, or undefined. */
  async authenticate(secret: string | undefined): Promise<UserPrincipal | undefined> {
    if (!secret) return undefined;
    const tokenHash = hashToken(secret);
    return this.recent.get(tokenHash, async (now) => {
      const t = await this.accounts.token(tokenHash);
      if (!t || (t.expiresAt && t.expiresAt.getTime() < now)) return undefined;
      const p = toPrincipal(t.user);
      return { value: t.kind === 'api' ? { ...p, token: t.name } : p, expiresAtMs: t.expiresAt?.getTime() };
    });
  }
}
