// Everything a running Stowage process shares: the database, the store and the services.
import { storageClassAdmission } from '../provisioners/admission';
import { createRealOs } from '../provisioners/os';
import { ObjectService } from '../services/objects';
import { loadSignInLimits } from './config';
import { UserService } from '../services/users';
import { ObjectStore } from '../store/object-store';
import { createPrisma, type Db } from '../store/prisma';

export interface AppContext {
  db: Db;
  store: ObjectStore;
  objects: ObjectService;
  users: UserService;
  close(): Promise<void>;
}

export async function createAppContext(connectionString: string, poolSize = 20): Promise<AppContext> {
  const db = createPrisma(connectionString, poolSize);
  const store = new ObjectStore(db, connectionString);
  await store.start();
  return {
    db,
    store,
    // StorageClasses of the in-tree provisioners are checked against this machine's disks.
    objects: new ObjectService(store, storageClassAdmission(createRealOs())),
    users: new UserService(db, loadSignInLimits()),
    close: async () => {
      await store.stop();
      await db.$disconnect();
    },
  };
}
