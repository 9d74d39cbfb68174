// The dashboard's users and tokens: admins list, add and remove users, set their role and
// namespaces, reset passwords and revoke tokens; every user lists, creates and revokes
// their own API tokens and gets a kubeconfig. Authorization first, in every method.
// A token's secret leaves only once, in the answer to its creation (or inside the
// kubeconfig made with it); lists show names and dates, never secrets or hashes.
import { hash } from '@node-rs/bcrypt';
import { ROLES, type Role, type UserPrincipal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isDNS1123Label } from '../domain/names';
import type { ObjectStore } from '../store/object-store';
import { UserAccounts, type TokenInfo } from '../store/user-accounts';
import { renderKubeconfig } from './kubeconfig';
import { generatePassword, type UserService } from './users';

const COST = 10;
const MAX_TOKEN_TTL_DAYS = 3650;

/** Where the Kubernetes-compatible API answers, for kubeconfigs. */
export interface KubeApiEndpoint {
  server: string;
  caPem?: string;
}

export interface UserChange {
  role?: string;
  namespaces?: string[];
}

function requireAdmin(actor: UserPrincipal, what: string): void {
  if (actor.role !== 'admin') throw new StowageError('Forbidden', `only administrators may ${what}`);
}

function checkRole(role: string): Role {
  if (!ROLES.includes(role as Role)) throw new StowageError('BadRequest', `role "${role}" must be one of ${ROLES.join(', ')}`);
  return role as Role;
}

function checkNamespaces(namespaces: string[]): string[] {
  const errors = namespaces.flatMap((ns) => isDNS1123Label(ns).map((e) => `namespace "${ns}": ${e}`));
  if (errors.length) throw new StowageError('BadRequest', errors.join('; '));
  return [...new Set(namespaces)].sort();
}

export class UserAdminService {
  private readonly accounts: UserAccounts;

  constructor(
    store: ObjectStore,
    private readonly users: UserService,
  ) {
    this.accounts = new UserAccounts(store);
  }

  private async account(name: string): Promise<UserPrincipal> {
    const u = await this.users.byName(name);
    if (!u) throw new StowageError('NotFound', `user "${name}" not found`);
    return u;
  }

  /** Every user with how many API tokens each has (admins only). */
  async list(actor: UserPrincipal): Promise<(Omit<UserPrincipal, 'id' | 'type' | 'token'> & { tokens: number })[]> {
    requireAdmin(actor, 'list users');
    const [users, counts] = await Promise.all([this.users.list(), this.accounts.tokenCounts('api')]);
    return users.map((u) => ({ name: u.name, role: u.role, namespaces: u.namespaces, tokens: counts.get(u.id) ?? 0 }));
  }

  /** Adds a user; the password (given, or generated) is returned once. */
  async add(actor: UserPrincipal, input: { name: string; role: string; namespaces?: string[]; password?: string }): Promise<{ name: string; password: string }> {
    requireAdmin(actor, 'add users');
    const { user, password } = await this.users.create(input);
    return { name: user.name, password };
  }

  async remove(actor: UserPrincipal, name: string): Promise<void> {
    requireAdmin(actor, 'remove users');
    if (name === actor.name) throw new StowageError('BadRequest', 'you cannot remove yourself; another administrator can');
    const u = await this.account(name);
    await this.accounts.remove(u.id);
    this.users.forgetAuthenticated();
  }

  /** Sets a user's role and/or namespaces. An admin cannot change their own role. */
  async update(actor: UserPrincipal, name: string, change: UserChange): Promise<{ name: string; role: Role; namespaces: string[] }> {
    requireAdmin(actor, 'change users');
    const u = await this.account(name);
    const role = change.role === undefined ? undefined : checkRole(change.role);
    const namespaces = change.namespaces === undefined ? undefined : checkNamespaces(change.namespaces);
    if (role !== undefined && role !== u.role && name === actor.name) throw new StowageError('BadRequest', 'you cannot change your own role; another administrator can');
    if (role !== undefined && role !== u.role) await this.accounts.setRole(u.id, role);
    if (namespaces !== undefined) await this.accounts.setNamespaces(u.id, namespaces);
    this.users.forgetAuthenticated();
    const after = await this.account(name);
    return { name: after.name, role: after.role, namespaces: after.namespaces };
  }

  /** Sets a new password (given, or generated and returned once) and signs the user out everywhere. */
  async resetPassword(actor: UserPrincipal, name: string, password?: string): Promise<{ password: string }> {
    requireAdmin(actor, 'reset passwords');
    if (password !== undefined && password.length < 8) throw new StowageError('BadRequest', 'password must have at least 8 characters');
    const u = await this.account(name);
    const next = password ?? generatePassword();
    await this.accounts.setPasswordHash(u.id, await hash(next, { cost: COST }));
    await this.accounts.deleteTokensOf(u.id, 'session');
    this.users.forgetAuthenticated();
    return { password: next };
  }

  /** A user's API tokens: their own, or anyone's for an admin. */
  async tokens(actor: UserPrincipal, userName: string = actor.name): Promise<TokenInfo[]> {
    if (userName !== actor.name) requireAdmin(actor, "see other users' tokens");
    return this.accounts.tokensOf((await this.account(userName)).id, 'api');
  }

  /** A new API token of the actor's own; its secret is in this answer and nowhere else. */
  async createToken(actor: UserPrincipal, input: { name: string; ttlDays?: number }): Promise<{ token: TokenInfo; secret: string }> {
    const name = input.name.trim();
    if (!name || name.length > 100) throw new StowageError('BadRequest', 'a token needs a name of 1-100 characters');
    if (input.ttlDays !== undefined && !(Number.isInteger(input.ttlDays) && input.ttlDays >= 1 && input.ttlDays <= MAX_TOKEN_TTL_DAYS)) {
      throw new StowageError('BadRequest', `a token's lifetime must be 1-${MAX_TOKEN_TTL_DAYS} days`);
    }
    const { id, secret } = await this.users.issueToken(actor.name, { kind: 'api', name, ttlMs: input.ttlDays ? input.ttlDays * 86_400_000 : undefined });
    const token = (await this.accounts.tokensOf(actor.id, 'api')).find((t) => t.id === id);
    if (!token) throw new StowageError('Conflict', 'the new token was revoked at once');
    return { token, secret };
  }

  /** Revokes an API token: the actor's own, or anyone's for an admin (then `userName` names its owner). */
  async revokeToken(actor: UserPrincipal, tokenId: string, userName: string = actor.name): Promise<void> {
    if (userName !== actor.name) requireAdmin(actor, "revoke other users' tokens");
    const owner = await this.account(userName);
    const gone = await this.accounts.deleteTokenOf(owner.id, tokenId);
    if (!gone) throw new StowageError('NotFound', `no token ${tokenId} of user "${userName}"`);
    this.users.forgetAuthenticated();
  }

  /** A kubeconfig for the API with a new token of the actor's own (shown in this answer only). */
  async kubeconfig(actor: UserPrincipal, api: KubeApiEndpoint | undefined, tokenName?: string): Promise<{ fileName: string; text: string }> {
    if (!api) throw new StowageError('BadRequest', 'this server does not serve the Kubernetes-compatible API');
    const { secret } = await this.createToken(actor, { name: tokenName?.trim() || `kubeconfig ${new Date().toISOString().slice(0, 19)}Z` });
    const namespace = actor.role === 'developer' ? actor.namespaces[0] : undefined;
    return { fileName: `${actor.name}.kubeconfig`, text: renderKubeconfig({ server: api.server, user: actor.name, token: secret, caPem: api.caPem, namespace }) };
  }
}
