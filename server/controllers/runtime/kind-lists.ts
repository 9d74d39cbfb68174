// Whole lists of a few small kinds (nodes, classes, published capacity) that a controller
// reads for every key, kept between reconciles and dropped when its watch sees a change of
// that kind (as an informer's lister answers from memory). A reconcile that began before
// the change may still use the older list; the change brings its keys back anyway. A list
// is also dropped after `maxAgeMs`, should the watch ever miss a change (it fell behind
// the log's compaction and started over).
import type { KindName, ObjectOfName } from '../../resources/kinds';
import type { ObjectStore } from '../../store/object-store';

/** Per kind kept, its last list: typed by the kind, so a reader needs no cast. */
type Kept<K extends KindName> = { [P in K]?: { at: number; items: Promise<ObjectOfName<P>[]> } };

export class KindLists<K extends KindName> {
  private readonly lists: Kept<K> = {};

  constructor(
    private readonly store: ObjectStore,
    readonly kinds: readonly K[],
    private readonly maxAgeMs = 5_000,
  ) {}

  /** The kind's objects, from the last list while no change of the kind was seen. */
  get<T extends K>(kind: T): Promise<ObjectOfName<T>[]> {
    const kept = this.lists[kind];
    if (kept && Date.now() - kept.at < this.maxAgeMs) return kept.items;
    const list = { at: Date.now(), items: this.store.list(kind).then((r) => r.items) };
    this.lists[kind] = list;
    // A failed list is not kept: the next reconcile lists again.
    list.items.catch(() => {
      if (this.lists[kind] === list) delete this.lists[kind];
    });
    return list.items;
  }

  /** Called for each change the watch sees: a change of a kept kind drops its list. */
  changed(kind: string): void {
    if (this.keeps(kind)) delete this.lists[kind];
  }

  private keeps(kind: string): kind is K {
    return (this.kinds as readonly string[]).includes(kind);
  }
}
