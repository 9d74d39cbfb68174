import { router } from './init';
import { authRouter } from './routers/auth';
import { listsRouter } from './routers/lists';
import { objectsRouter } from './routers/objects';

export const appRouter = router({
  auth: authRouter,
  objects: objectsRouter,
  lists: listsRouter,
});

export type AppRouter = typeof appRouter;
