// The Capacity page and the home page's capacity warnings; thin over CapacityService.
import { z } from 'zod';
import { authedProcedure, router } from '../init';

export const capacityRouter = router({
  overview: authedProcedure.query(({ ctx }) => ctx.app.capacity.overview(ctx.principal)),
  trend: authedProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).optional() }).optional())
    .query(({ ctx, input }) => ctx.app.capacity.trend(ctx.principal, input?.days ?? 30)),
  /** "Days until the quota is full" per namespace the principal may read (developers: theirs only). */
  quotaForecast: authedProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).optional() }).optional())
    .query(({ ctx, input }) => ctx.app.capacity.quotaForecasts(ctx.principal, input?.days ?? 30)),
  /** Admins: what a node reported of its pools over time (refused reports included), newest first. */
  poolReports: authedProcedure
    .input(z.object({ node: z.string().min(1).max(253), limit: z.number().int().min(1).max(1000).optional() }))
    .query(({ ctx, input }) => ctx.app.nodeAgent.pools.reportHistory(ctx.principal, input.node, input.limit)),
  attention: authedProcedure.query(async ({ ctx }) => {
    const s = ctx.app.capacity;
    const [quotas, wipes, nearlyFull] = await Promise.all([s.quotasNearFull(ctx.principal), s.wipesInProgress(ctx.principal), s.claimsNearlyFull(ctx.principal)]);
    return { quotas, wipes, nearlyFull };
  }),
});
