// The claim form: the classes it offers and the live check of what a claim would do.
import { z } from 'zod';
import { StowageError } from '../../domain/errors';
import type { KubeObject } from '../../resources/types';
import { authedProcedure, router } from '../init';

export const claimsRouter = router({
  classes: authedProcedure.query(({ ctx }) => ctx.app.claims.classes(ctx.principal)),

  /** The claim as the form would create it (JSON, bounded); nothing is written. */
  check: authedProcedure
    .input(z.object({ claim: z.record(z.string(), z.unknown()) }))
    .query(({ ctx, input }) => {
      if (JSON.stringify(input.claim).length > 64 * 1024) throw new StowageError('RequestEntityTooLarge', 'the claim is larger than 64 KiB');
      return ctx.app.claims.check(ctx.principal, input.claim as unknown as KubeObject);
    }),

  /** What the namespace's quotas leave for this claim ("12 of 50 Gi left in team-a for class fast"). */
  quota: authedProcedure
    .input(z.object({ claim: z.record(z.string(), z.unknown()) }))
    .query(({ ctx, input }) => {
      if (JSON.stringify(input.claim).length > 64 * 1024) throw new StowageError('RequestEntityTooLarge', 'the claim is larger than 64 KiB');
      return ctx.app.claims.quota(ctx.principal, input.claim as unknown as KubeObject);
    }),
});
