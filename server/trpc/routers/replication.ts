// Replicated pool volumes' procedures: a node drain's preview and apply (with dry run), and
// uncordon. Thin: bounded inputs, one service call each (admins only, checked there).
import { z } from 'zod';
import { authedProcedure, router } from '../init';

const node = z.string().min(1).max(253);

export const replicationRouter = router({
  drainPreview: authedProcedure.input(z.object({ node })).query(({ ctx, input }) => ctx.app.replication.drainPreview(ctx.principal, input.node)),
  drain: authedProcedure
    .input(z.object({ node, dryRun: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.app.replication.drain(ctx.principal, input.node, { dryRun: input.dryRun })),
  uncordon: authedProcedure.input(z.object({ node })).mutation(({ ctx, input }) => ctx.app.replication.uncordon(ctx.principal, input.node)),
});
