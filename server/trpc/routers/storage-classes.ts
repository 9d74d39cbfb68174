// StorageClasses' own procedures beyond the generic objects ones: "Replace in place"
// (delete and create again under the same name, in one transaction). Thin: authorizes,
// parses the manifest, calls the app's ClassReplaceService.
import { z } from 'zod';
import { parseManifest } from '../../services/manifest';
import { authedProcedure, router } from '../init';

export const storageClassesRouter = router({
  replaceInPlace: authedProcedure
    .input(
      z.object({
        name: z.string().min(1).max(253),
        resourceVersion: z.string().min(1).max(40),
        manifest: z.string().max(2 * 1024 * 1024),
        makeDefault: z.boolean(),
        dryRun: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const svc = ctx.app.classes;
      // Authorize before parsing: a non-admin gets a 403 whatever the manifest holds.
      svc.authorize(ctx.principal, input.name);
      const replacement = parseManifest(input.manifest);
      return svc.replaceInPlace(ctx.principal, { name: input.name, resourceVersion: input.resourceVersion, replacement, makeDefault: input.makeDefault, dryRun: input.dryRun });
    }),
});
