// Snapshots' own procedures beyond the generic objects ones (list, get, delete): take one of
// a claim now, save a claim's schedule, make a snapshot class its driver's default. Thin:
// bounded inputs, one service call each.
import { z } from 'zod';
import { MAX_KEEP, MIN_KEEP } from '../../domain/snapshot-schedule';
import { MAX_BACKUP_KEEP, MIN_BACKUP_KEEP } from '../../resources/snapshot-schedule/strategy';
import { authedProcedure, router } from '../init';

const name = z.string().min(1).max(253);
const namespace = z.string().min(1).max(63);

export const snapshotsRouter = router({
  take: authedProcedure
    .input(z.object({ namespace, claim: name, snapshotClassName: name.optional() }))
    .mutation(({ ctx, input }) => ctx.app.snapshots.take(ctx.principal, input.namespace, input.claim, input.snapshotClassName)),

  saveSchedule: authedProcedure
    .input(
      z.object({
        namespace,
        name: z.string().min(1).max(63),
        claimName: name,
        every: z.string().min(1).max(32),
        keep: z.number().int().min(MIN_KEEP).max(MAX_KEEP),
        snapshotClassName: name.optional(),
        suspend: z.boolean().optional(),
        /** Each snapshot is also backed up: into the target (the default when unset), keeping the newest `keep`. */
        backup: z.object({ targetName: name.optional(), keep: z.number().int().min(MIN_BACKUP_KEEP).max(MAX_BACKUP_KEEP) }).optional(),
        resourceVersion: z.string().min(1).max(40).optional(),
        generation: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
      }),
    )
    .mutation(({ ctx, input }) => ctx.app.snapshots.saveSchedule(ctx.principal, input)),

  setDefaultClass: authedProcedure
    .input(z.object({ name, on: z.boolean() }))
    .mutation(({ ctx, input }) => ctx.app.snapshots.setDefaultClass(ctx.principal, input.name, input.on)),
});
