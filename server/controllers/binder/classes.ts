// StorageClass lookups for the binder: the class list kept (runtime/kind-lists.ts) until the
// binder's watch sees a class change, or for at most a few seconds.
import { newestDefault } from '../../resources/storage-class/default-class';
import { isDefaultClass } from '../../resources/storage-class/strategy';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { ObjectStore } from '../../store/object-store';
import { KindLists } from '../runtime/kind-lists';

export { isDefaultClass, newestDefault };

export class ClassCache {
  private readonly lists: KindLists<'StorageClass'>;

  constructor(store: ObjectStore, ttlMs = 5000) {
    this.lists = new KindLists(store, ['StorageClass'], ttlMs);
  }

  invalidate(): void {
    this.lists.changed('StorageClass');
  }

  private async all(): Promise<Map<string, StorageClass>> {
    return new Map((await this.lists.get('StorageClass')).map((sc) => [sc.metadata.name!, sc]));
  }

  async get(name: string): Promise<StorageClass | undefined> {
    return (await this.all()).get(name);
  }

  async defaultClass(): Promise<StorageClass | undefined> {
    return newestDefault([...(await this.all()).values()]);
  }
}
