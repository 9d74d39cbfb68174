// The dashboard's scalable lists and their bulk actions; thin over ListService.
import { z } from 'zod';
import { authedProcedure, router } from '../init';
import { pageInput } from '../../services/lists';

const kind = z.string().min(1).max(100);
const name = z.string().min(1).max(253);
const refs = z.array(z.object({ namespace: z.string().max(253).optional(), name })).min(1).max(500);

export const listsRouter = router({
  page: authedProcedure.input(pageInput).query(({ ctx, input }) => ctx.app.lists.page(ctx.principal, input)),

  label: authedProcedure
    .input(z.object({ kind, refs, key: z.string().min(1).max(317), value: z.string().max(63).nullable() }))
    .mutation(({ ctx, input }) => ctx.app.lists.label(ctx.principal, input.kind, input.refs, input.key, input.value)),

  delete: authedProcedure
    .input(z.object({ kind, refs }))
    .mutation(({ ctx, input }) => ctx.app.lists.delete(ctx.principal, input.kind, input.refs)),

  reclaim: authedProcedure
    .input(z.object({ names: z.array(name).min(1).max(500) }))
    // The reclaim center's rule and write path (server/services/reclaim.ts).
    .mutation(({ ctx, input }) => ctx.app.reclaim.makeAvailable(ctx.principal, input.names)),

  setDefaultClass: authedProcedure
    .input(z.object({ name, on: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.app.lists.setDefaultClass(ctx.principal, input.name, input.on)),

  health: authedProcedure.query(({ ctx }) => ctx.app.lists.health(ctx.principal)),
});
