// Object timelines and the audit log (with its CSV/JSON export); thin over HistoryService.
import { z } from 'zod';
import { authedProcedure, router } from '../init';

const str = (max: number) => z.string().max(max);

export const auditInput = z
  .object({
    actor: str(300).optional(),
    namespace: str(253).optional(),
    kind: str(100).optional(),
    name: str(253).optional(),
    action: str(20).optional(),
    from: str(64).optional(),
    to: str(64).optional(),
    cursor: str(20).optional(),
    heartbeats: z.boolean().optional(),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();

export const historyRouter = router({
  timeline: authedProcedure
    .input(z.object({ kind: str(100).min(1), namespace: str(253).optional(), name: str(253).min(1) }).strict())
    .query(({ ctx, input }) => ctx.app.history.timeline(ctx.principal, input.kind, input.namespace, input.name)),

  audit: authedProcedure.input(auditInput).query(({ ctx, input }) => ctx.app.history.audit(ctx.principal, input)),

  export: authedProcedure
    .input(z.object({ format: z.enum(['csv', 'json']), filter: auditInput }).strict())
    .query(({ ctx, input }) => ctx.app.history.export(ctx.principal, input.filter, input.format)),
});
