import { router } from './init';
import { authRouter } from './routers/auth';
import { claimsRouter } from './routers/claims';
import { historyRouter } from './routers/history';
import { listsRouter } from './routers/lists';
import { localVolumesRouter } from './routers/local-volumes';
import { objectsRouter } from './routers/objects';

export const appRouter = router({
  auth: authRouter,
  objects: objectsRouter,
  lists: listsRouter,
  claims: claimsRouter,
  localVolumes: localVolumesRouter,
  history: historyRouter,
});

export type AppRouter = typeof appRouter;
