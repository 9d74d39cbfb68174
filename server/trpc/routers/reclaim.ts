// The reclaim center: its lists, previews of actions, the actions, and the cleanup retry.
// Thin: each procedure calls one ReclaimService method.
import { z } from 'zod';
import { VOLUME_ACTIONS } from '../../domain/reclaim';
import { MAX_RECLAIM_BATCH } from '../../services/reclaim';
import { authedProcedure, router } from '../init';

const target = z.object({
  kind: z.enum(['PersistentVolume', 'PersistentVolumeClaim']),
  namespace: z.string().min(1).max(253).optional(),
  name: z.string().min(1).max(253),
  // Claims' actions (delete) are a subset of volumes'.
  action: z.enum(VOLUME_ACTIONS),
  claim: z.string().max(320).optional(),
});

export const reclaimRouter = router({
  overview: authedProcedure
    .input(z.object({ unusedDays: z.number().int().min(0).max(3650) }))
    .query(({ ctx, input }) => ctx.app.reclaim.overview(ctx.principal, input)),
  preview: authedProcedure
    .input(z.object({ targets: z.array(target).min(1).max(MAX_RECLAIM_BATCH) }))
    .mutation(({ ctx, input }) => ctx.app.reclaim.preview(ctx.principal, input.targets)),
  act: authedProcedure
    .input(z.object({ items: z.array(target.extend({ resourceVersion: z.string().min(1).max(40) })).min(1).max(MAX_RECLAIM_BATCH) }))
    .mutation(({ ctx, input }) => ctx.app.reclaim.apply(ctx.principal, input.items)),
  retryCleanup: authedProcedure
    .input(z.object({ jobId: z.string().uuid() }))
    .mutation(({ ctx, input }) => ctx.app.reclaim.retryCleanup(ctx.principal, input.jobId)),
});
