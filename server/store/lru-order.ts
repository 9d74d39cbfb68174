// Keys in the order they were last used, oldest first, with O(1) use, removal and oldest
// (a doubly linked list over a Map). The object cache keeps its limited kinds' objects in
// it. A Set used so (delete, re-add, then `values().next()` for the oldest) is quadratic in
// V8: the oldest is found by skipping every deleted slot from the table's start, and at a
// million listed objects that was 70 % of a two-minute start-up.

interface Node {
  key: string;
  older: Node | undefined;
  newer: Node | undefined;
}

export class LruOrder {
  private readonly nodes = new Map<string, Node>();
  private oldestNode: Node | undefined;
  private newestNode: Node | undefined;

  get size(): number {
    return this.nodes.size;
  }

  /** Adds the key as the newest, or makes it the newest. */
  use(key: string): void {
    const n = this.nodes.get(key);
    if (n) {
      if (n === this.newestNode) return;
      this.unlink(n);
      this.link(n);
      return;
    }
    const node: Node = { key, older: undefined, newer: undefined };
    this.nodes.set(key, node);
    this.link(node);
  }

  delete(key: string): boolean {
    const n = this.nodes.get(key);
    if (!n) return false;
    this.unlink(n);
    this.nodes.delete(key);
    return true;
  }

  /** The least recently used key. */
  oldest(): string | undefined {
    return this.oldestNode?.key;
  }

  clear(): void {
    this.nodes.clear();
    this.oldestNode = this.newestNode = undefined;
  }

  private link(n: Node): void {
    n.older = this.newestNode;
    n.newer = undefined;
    if (this.newestNode) this.newestNode.newer = n;
    this.newestNode = n;
    this.oldestNode ??= n;
  }

  private unlink(n: Node): void {
    if (n.older) n.older.newer = n.newer;
    else this.oldestNode = n.newer;
    if (n.newer) n.newer.older = n.older;
    else this.newestNode = n.older;
    n.older = n.newer = undefined;
  }
}
