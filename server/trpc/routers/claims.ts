// The claim form: the classes it offers and the live check of what a claim would do; the
// claim page's doctor (capacity, fixes with preview and apply).
import { z } from 'zod';
import { FIX_KINDS } from '../../domain/claim-fixes';
import { StowageError } from '../../domain/errors';
import type { KubeObject } from '../../resources/types';
import { authedProcedure, router } from '../init';

const claimRef = z.object({ namespace: z.string().min(1).max(63), name: z.string().min(1).max(253) });
const fixRef = claimRef.extend({ kind: z.enum(FIX_KINDS), target: z.string().min(1).max(253).optional() });

export const claimsRouter = router({
  /** The claim page: capacity requested / provisioned / used, and the doctor's fixes. */
  doctor: authedProcedure.input(claimRef).query(({ ctx, input }) => ctx.app.claimDoctor.overview(ctx.principal, input.namespace, input.name)),
  fixPreview: authedProcedure.input(fixRef).query(({ ctx, input }) => ctx.app.claimDoctor.preview(ctx.principal, input)),
  fixApply: authedProcedure
    .input(fixRef.extend({ resourceVersion: z.string().min(1).max(40) }))
    .mutation(({ ctx, input }) => ctx.app.claimDoctor.apply(ctx.principal, input)),

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
