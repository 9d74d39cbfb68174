// Backups' own procedures beyond the generic objects ones (list, get, create, delete): the
// targets' names and readiness for the backup form, and a verify request. Thin: bounded
// inputs, one service call each.
import { z } from 'zod';
import { verifyRequestedAnnotation } from '../../services/backups';
import { authedProcedure, router } from '../init';

const name = z.string().min(1).max(253);
const namespace = z.string().min(1).max(63);

export const backupsRouter = router({
  targetChoices: authedProcedure.query(({ ctx }) => ctx.app.backups.targetChoices(ctx.principal)),

  verify: authedProcedure
    .input(z.object({ namespace, name }))
    .mutation(async ({ ctx, input }) => {
      const b = await ctx.app.backups.requestVerify(ctx.principal, input.namespace, input.name);
      return { name: b.metadata.name, requestedAt: b.metadata.annotations?.[verifyRequestedAnnotation] };
    }),
});
