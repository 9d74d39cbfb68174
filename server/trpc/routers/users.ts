// Users and API tokens in the dashboard. Transport only: each procedure parses, calls the
// user-admin service (which authorizes: admins manage users and anyone's tokens; everyone
// their own tokens) and shapes the output. A token's secret is in `createToken`'s and
// `kubeconfig`'s answers only.
import { z } from 'zod';
import type { TokenInfo } from '../../store/user-accounts';
import { authedProcedure, router } from '../init';

const userName = z.string().min(1).max(63);
const namespaces = z.array(z.string().min(1).max(63)).max(200);
const password = z.string().min(8).max(1000);
const role = z.string().min(1).max(20);

/** What a token list shows: dates as ISO text; never the secret or its hash. */
function tokenOut(t: TokenInfo) {
  return { id: t.id, name: t.name, createdAt: t.createdAt.toISOString(), expiresAt: t.expiresAt?.toISOString() ?? null, lastUsedAt: t.lastUsedAt?.toISOString() ?? null };
}

export const usersRouter = router({
  list: authedProcedure.query(({ ctx }) => ctx.app.userAdmin.list(ctx.principal)),
  add: authedProcedure
    .input(z.object({ name: userName, role, namespaces: namespaces.optional(), password: password.optional() }))
    .mutation(({ ctx, input }) => ctx.app.userAdmin.add(ctx.principal, input)),
  remove: authedProcedure.input(z.object({ name: userName })).mutation(async ({ ctx, input }) => {
    await ctx.app.userAdmin.remove(ctx.principal, input.name);
    return { removed: input.name };
  }),
  update: authedProcedure
    .input(z.object({ name: userName, role: role.optional(), namespaces: namespaces.optional() }))
    .mutation(({ ctx, input }) => ctx.app.userAdmin.update(ctx.principal, input.name, { role: input.role, namespaces: input.namespaces })),
  resetPassword: authedProcedure
    .input(z.object({ name: userName, password: password.optional() }))
    .mutation(({ ctx, input }) => ctx.app.userAdmin.resetPassword(ctx.principal, input.name, input.password)),
  /** The API tokens of a user (default: yourself). */
  tokens: authedProcedure
    .input(z.object({ user: userName.optional() }))
    .query(async ({ ctx, input }) => (await ctx.app.userAdmin.tokens(ctx.principal, input.user)).map(tokenOut)),
  createToken: authedProcedure
    .input(z.object({ name: z.string().min(1).max(100), ttlDays: z.number().int().min(1).max(3650).optional() }))
    .mutation(async ({ ctx, input }) => {
      const { token, secret } = await ctx.app.userAdmin.createToken(ctx.principal, input);
      return { token: tokenOut(token), secret };
    }),
  revokeToken: authedProcedure
    .input(z.object({ id: z.string().uuid(), user: userName.optional() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.app.userAdmin.revokeToken(ctx.principal, input.id, input.user);
      return { revoked: input.id };
    }),
  /** A kubeconfig for the API with a new token of your own. */
  kubeconfig: authedProcedure
    .input(z.object({ tokenName: z.string().max(100).optional() }))
    .mutation(({ ctx, input }) => ctx.app.userAdmin.kubeconfig(ctx.principal, ctx.kubeApi, input.tokenName)),
});
