// StorageClass lookups for the binder, cached briefly and dropped on any class change.
import { newestDefault } from '../../resources/storage-class/default-class';
import { isDefaultClass } from '../../resources/storage-class/strategy';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { ObjectStore } from '../../store/object-store';

export { isDefaultClass, newestDefault };

export class ClassCache {
  private classes: Promise<Map<string, StorageClass>> | undefined;
  private loadedAt = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly ttlMs = 5000,
  ) {}

  invalidate(): void {
    this.classes = undefined;
  }

  private all(): Promise<Map<string, StorageClass>> {
    if (!this.classes || Date.now() - this.loadedAt > this.ttlMs) {
      this.loadedAt = Date.now();
      // A list of kind StorageClass.
      this.classes = this.store.list('StorageClass').then((r) => new Map(r.items.map((sc) => [sc.metadata.name!, sc as StorageClass])));
      this.classes.catch(() => this.invalidate());
    }
    return this.classes;
  }

  async get(name: string): Promise<StorageClass | undefined> {
    return (await this.all()).get(name);
  }

  async defaultClass(): Promise<StorageClass | undefined> {
    return newestDefault([...(await this.all()).values()]);
  }
}
