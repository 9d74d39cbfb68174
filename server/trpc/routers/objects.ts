// The dashboard's view of every kind: list, get, events, create/update from a
// manifest, delete, and a live stream of changes.
import { tracked } from '@trpc/server';
import { z } from 'zod';
import { StowageError } from '../../domain/errors';
import { strategies } from '../../resources/registry';
import { parseManifest } from '../../services/manifest';
import { strategyOrThrow } from '../../services/objects';
import { authedProcedure, publicProcedure, router, typedErrors } from '../init';

const ref = z.object({
  kind: z.string().min(1).max(100),
  namespace: z.string().max(253).optional(),
  name: z.string().min(1).max(253),
});

export const objectsRouter = router({
  kinds: publicProcedure.query(() =>
    strategies.map((s) => ({
      kind: s.kind,
      apiVersion: s.apiVersion,
      plural: s.plural,
      namespaced: s.namespaced,
      shortNames: s.shortNames,
      columns: s.table.columns,
    })),
  ),

  list: authedProcedure
    .input(
      z.object({
        kind: z.string().min(1).max(100),
        namespace: z.string().max(253).optional(),
        labelSelector: z.string().max(4096).optional(),
        fieldSelector: z.string().max(4096).optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      strategyOrThrow(input.kind);
      return ctx.app.objects.list(ctx.principal, input.kind, {
        namespace: input.namespace || undefined,
        labelSelector: input.labelSelector || undefined,
        fieldSelector: input.fieldSelector || undefined,
      });
    }),

  get: authedProcedure.input(ref).query(({ ctx, input }) =>
    ctx.app.objects.get(ctx.principal, input.kind, input.namespace, input.name),
  ),

  /** What names a storage class, snapshot class or backup target: for its delete dialog (only to who may delete it). */
  dependents: authedProcedure
    .input(z.object({ kind: z.enum(['StorageClass', 'VolumeSnapshotClass', 'BackupTarget']), name: z.string().min(1).max(253) }))
    .query(({ ctx, input }) => ctx.app.dependents.of(ctx.principal, input.kind, input.name)),

  events: authedProcedure.input(ref).query(async ({ ctx, input }) => {
    const obj = await ctx.app.objects.get(ctx.principal, input.kind, input.namespace, input.name);
    return ctx.app.objects.eventsFor(ctx.principal, obj);
  }),

  create: authedProcedure
    .input(z.object({ manifest: z.string().max(2 * 1024 * 1024), namespace: z.string().max(253).optional(), dryRun: z.boolean().optional() }))
    .mutation(({ ctx, input }) => {
      // Authorize before parsing: a principal who may create nothing gets a 403 whatever the manifest holds.
      ctx.app.objects.authorizeAny(ctx.principal, 'create');
      const obj = parseManifest(input.manifest);
      if (strategyOrThrow(obj.kind).namespaced && !obj.metadata.namespace) obj.metadata.namespace = input.namespace || 'default';
      return ctx.app.objects.create(ctx.principal, obj, { dryRun: input.dryRun });
    }),

  update: authedProcedure
    .input(z.object({ manifest: z.string().max(2 * 1024 * 1024), kind: z.string(), namespace: z.string().optional(), name: z.string() }))
    .mutation(({ ctx, input }) => {
      ctx.app.objects.authorize(ctx.principal, 'update', input.kind, input.namespace, input.name);
      const obj = parseManifest(input.manifest);
      const s = strategyOrThrow(obj.kind);
      if (obj.kind !== input.kind || obj.metadata.name !== input.name || (s.namespaced && (obj.metadata.namespace ?? input.namespace) !== input.namespace)) {
        throw new StowageError('BadRequest', `the manifest must keep kind ${input.kind} and name ${input.name}; to make a different object, create it`);
      }
      if (s.namespaced) obj.metadata.namespace = input.namespace;
      return ctx.app.objects.update(ctx.principal, obj);
    }),

  delete: authedProcedure.input(ref).mutation(async ({ ctx, input }) => {
    const res = await ctx.app.objects.delete(ctx.principal, input.kind, input.namespace, input.name);
    return { deleted: res.deleted, object: res.object };
  }),

  /** Live changes (Server-Sent Events): lists patch their rows; other views refetch what they touch. */
  watch: authedProcedure
    .input(z.object({ kinds: z.array(z.string()).max(20).optional(), namespace: z.string().optional(), lastEventId: z.string().nullish() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      // Errors (403, 404, 410, 400) reach the client with their own codes, as a query's do.
      const it = typedErrors(
        (async function* () {
          yield* ctx.app.objects.watch(ctx.principal, {
            kinds: input?.kinds,
            namespace: input?.namespace || undefined,
            resourceVersion: input?.lastEventId ?? undefined,
            signal,
          });
        })(),
      );
      for await (const e of it) {
        yield tracked(e.rv.toString(), {
          type: e.type,
          kind: e.kind,
          namespace: e.namespace,
          name: e.name,
          resourceVersion: e.rv.toString(),
          // The object as written (already redacted for this principal), so lists can
          // patch the row in place instead of refetching.
          object: e.object,
        });
      }
    }),
});
