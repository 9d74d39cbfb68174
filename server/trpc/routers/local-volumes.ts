// The dashboard's local volumes: a node's disks, the roll-up, a PV's cleanup history,
// retry/cancel of cleanups. Thin: each procedure calls one LocalVolumeService method.
import { z } from 'zod';
import type { AppContext } from '../../app/context';
import { LocalVolumeService } from '../../services/local-volumes';
import { authedProcedure, router } from '../init';

const service = (ctx: { app: Pick<AppContext, 'store' | 'nodeAgent'> }) => new LocalVolumeService(ctx.app.store, ctx.app.nodeAgent);
const name = z.string().min(1).max(253);
const jobId = z.string().uuid();

export const localVolumesRouter = router({
  nodeDisks: authedProcedure.input(z.object({ node: name })).query(({ ctx, input }) => service(ctx).nodeDisks(ctx.principal, input.node)),
  rollup: authedProcedure.query(({ ctx }) => service(ctx).rollup(ctx.principal)),
  volumeHistory: authedProcedure.input(z.object({ pv: name })).query(({ ctx, input }) => service(ctx).volumeHistory(ctx.principal, input.pv)),
  retry: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => service(ctx).retry(ctx.principal, input.jobId)),
  cancel: authedProcedure.input(z.object({ jobId })).mutation(({ ctx, input }) => service(ctx).cancel(ctx.principal, input.jobId)),
});
