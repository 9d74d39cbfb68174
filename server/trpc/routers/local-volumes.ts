// The dashboard's local volumes: a node's disks, the roll-up, a PV's cleanup history,
// retry/cancel of cleanups. Thin: each procedure calls one LocalVolumeService method.
import { z } from 'zod';
import { authedProcedure, router } from '../init';

const name = z.string().min(1).max(253);
const jobId = z.string().uuid();

export const localVolumesRouter = router({
  nodeDisks: authedProcedure.input(z.object({ node: name })).query(({ ctx, input }) => ctx.app.localVolumes.nodeDisks(ctx.principal, input.node)),
  rollup: authedProcedure.query(({ ctx }) => ctx.app.localVolumes.rollup(ctx.principal)),
  volumeHistory: authedProcedure.input(z.object({ pv: name })).query(({ ctx, input }) => ctx.app.localVolumes.volumeHistory(ctx.principal, input.pv)),
  retry: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => ctx.app.localVolumes.retry(ctx.principal, input.jobId)),
  cancel: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => ctx.app.localVolumes.cancel(ctx.principal, input.jobId)),
});
