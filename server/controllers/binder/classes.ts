// StorageClass lookups for the binder, cached briefly and dropped on any class change.
import { newestDefault } from '../../resources/storage-class/default-class';
import { isDefaultClass } from '../../resources/storage-class/strategy';
import type { KubeObject } from '../../resources/types';
import type { ObjectStore } from '../../store/object-store';

export { isDefaultClass, newestDefault };

export class ClassCache {
  private classes: Promise<Map<string, KubeObject>> | undefined;
  private loadedAt = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly ttlMs = 5000,
  ) {}

  invalidate(): void {
    this.classes = undefined;
  }

  private all(): Promise<Map<string, KubeObject>> {
    if (!this.classes || Date.now() - this.loadedAt > this.ttlMs) {
      this.loadedAt = Date.now();
      this.classes = this.store.list('StorageClass').then((r) => new Map(r.items.map((sc) => [sc.metadata.name!, sc])));
      this.classes.catch(() => this.invalidate());
    }
    return this.classes;
  }

  async get(name: string): Promise<KubeObject | undefined> {
    return (await this.all()).get(name);
  }

  async defaultClass(): Promise<KubeObject | undefined> {
    return newestDefault([...(await this.all()).values()]);
  }
}
