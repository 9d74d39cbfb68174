// StorageClass lookups for the binder, cached briefly and dropped on any class change.
import { isDefaultClass } from '../../resources/storage-class/strategy';
import type { KubeObject } from '../../resources/types';
import type { ObjectStore } from '../../store/object-store';

export { isDefaultClass };

/** Upstream GetDefaultClass: of several defaults the newest wins; equal times go by name, ascending. */
export function newestDefault(classes: KubeObject[]): KubeObject | undefined {
  let best: KubeObject | undefined;
  for (const sc of classes.filter(isDefaultClass)) {
    if (!best) {
      best = sc;
      continue;
    }
    const a = String(sc.metadata.creationTimestamp ?? '');
    const b = String(best.metadata.creationTimestamp ?? '');
    if (a > b || (a === b && String(sc.metadata.name) < String(best.metadata.name))) best = sc;
  }
  return best;
}

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
