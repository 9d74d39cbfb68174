import { router } from './init';
import { authRouter } from './routers/auth';
import { localVolumesRouter } from './routers/local-volumes';
import { objectsRouter } from './routers/objects';

export const appRouter = router({
  auth: authRouter,
  objects: objectsRouter,
  localVolumes: localVolumesRouter,
});

export type AppRouter = typeof appRouter;
