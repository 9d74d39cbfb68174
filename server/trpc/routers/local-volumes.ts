// The dashboard's local volumes: a node's disks, the roll-up, a PV's cleanup history,
// retry/cancel of cleanups, the volumes with a copy on a node (a page at a time). Thin: each procedure calls one LocalVolumeService method.
import { z } from 'zod';
import { authedProcedure, router } from '../init';

const name = z.string().min(1).max(253);
const jobId = z.string().uuid();

export const localVolumesRouter = router({
  nodeDisks: authedProcedure.input(z.object({ node: name })).query(({ ctx, input }) => ctx.app.localVolumes.nodeDisks(ctx.principal, input.node)),
  nodeVolumes: authedProcedure
    .input(z.object({ node: name, offset: z.number().int().min(0).max(1_000_000).default(0), limit: z.number().int().min(1).max(200).default(50), replicasOnly: z.boolean().optional() }))
    .query(({ ctx, input }) => ctx.app.localVolumes.nodeVolumes(ctx.principal, input.node, { offset: input.offset, limit: input.limit, replicasOnly: input.replicasOnly })),
  rollup: authedProcedure.query(({ ctx }) => ctx.app.localVolumes.rollup(ctx.principal)),
  volumeHistory: authedProcedure.input(z.object({ pv: name })).query(({ ctx, input }) => ctx.app.localVolumes.volumeHistory(ctx.principal, input.pv)),
  retry: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => ctx.app.localVolumes.retry(ctx.principal, input.jobId)),
  cancel: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => ctx.app.localVolumes.cancel(ctx.principal, input.jobId)),
});
