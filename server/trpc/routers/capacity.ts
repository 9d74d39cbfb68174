// The Capacity page and the home page's capacity warnings; thin over CapacityService.
import { z } from 'zod';
import { CapacityService } from '../../services/capacity';
import { authedProcedure, router } from '../init';

const service = (ctx: { app: { store: ConstructorParameters<typeof CapacityService>[0] } }) => new CapacityService(ctx.app.store);

export const capacityRouter = router({
  overview: authedProcedure.query(({ ctx }) => service(ctx).overview(ctx.principal)),
  trend: authedProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).optional() }).optional())
    .query(({ ctx, input }) => service(ctx).trend(ctx.principal, input?.days ?? 30)),
  /** "Days until the quota is full" per namespace the principal may read (developers: theirs only). */
  quotaForecast: authedProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).optional() }).optional())
    .query(({ ctx, input }) => service(ctx).quotaForecasts(ctx.principal, input?.days ?? 30)),
  attention: authedProcedure.query(async ({ ctx }) => {
    const s = service(ctx);
    const [quotas, wipes] = await Promise.all([s.quotasNearFull(ctx.principal), s.wipesInProgress(ctx.principal)]);
    return { quotas, wipes };
  }),
});
