import { router } from './init';
import { authRouter } from './routers/auth';
import { backupsRouter } from './routers/backups';
import { capacityRouter } from './routers/capacity';
import { claimsRouter } from './routers/claims';
import { historyRouter } from './routers/history';
import { listsRouter } from './routers/lists';
import { localVolumesRouter } from './routers/local-volumes';
import { objectsRouter } from './routers/objects';
import { reclaimRouter } from './routers/reclaim';
import { replicationRouter } from './routers/replication';
import { snapshotsRouter } from './routers/snapshots';
import { settingsRouter } from './routers/settings';
import { storageClassesRouter } from './routers/storage-classes';
import { usersRouter } from './routers/users';

export const appRouter = router({
  auth: authRouter,
  objects: objectsRouter,
  lists: listsRouter,
  claims: claimsRouter,
  localVolumes: localVolumesRouter,
  history: historyRouter,
  reclaim: reclaimRouter,
  capacity: capacityRouter,
  storageClasses: storageClassesRouter,
  users: usersRouter,
  snapshots: snapshotsRouter,
  backups: backupsRouter,
  settings: settingsRouter,
  replication: replicationRouter,
});

export type AppRouter = typeof appRouter;
