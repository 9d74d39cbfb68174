import { z } from 'zod';
import { SESSION_TTL_MS } from '../../services/users';
import { authedProcedure, publicProcedure, router } from '../init';

export const authRouter = router({
  me: publicProcedure.query(({ ctx }) => {
    const p = ctx.principal;
    return p ? { name: p.name, role: p.role, namespaces: p.namespaces } : null;
  }),
  signIn: publicProcedure
    .input(z.object({ name: z.string().min(1).max(200), password: z.string().min(1).max(1000) }))
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.app.users.signIn(input.name, input.password, ctx.clientAddress);
      const token = await ctx.app.users.createToken(user.name, { kind: 'session', ttlMs: SESSION_TTL_MS });
      ctx.setSessionCookie(token);
      return { name: user.name, role: user.role, namespaces: user.namespaces };
    }),
  signOut: authedProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionToken) await ctx.app.users.revokeToken(ctx.sessionToken);
    ctx.setSessionCookie(null);
    return { ok: true };
  }),
});
