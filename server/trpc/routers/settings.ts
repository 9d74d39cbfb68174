// Settings administrators change in the dashboard; thin over SettingsService.
import { z } from 'zod';
import { authedProcedure, router } from '../init';

export const settingsRouter = router({
  get: authedProcedure.query(({ ctx }) => ctx.app.settings.get(ctx.principal)),
  update: authedProcedure
    .input(z.object({ nearlyFullPercent: z.number().int().min(1).max(100).nullable() }).strict())
    .mutation(({ ctx, input }) => ctx.app.settings.update(ctx.principal, input)),
});
