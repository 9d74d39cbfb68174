import { router } from './init';
import { authRouter } from './routers/auth';
import { objectsRouter } from './routers/objects';

export const appRouter = router({
  auth: authRouter,
  objects: objectsRouter,
});

export type AppRouter = typeof appRouter;
