// Which copy of a volume a node holds, from what the PV says: the only copy (a volume pinned
// to the node), the active copy of a replicated volume, or one of its replicas (with the
// replica's state and data age). Pure.
import { behindSeconds, readReplication, type ReplicaState } from './replication';

export type NodeCopy =
  | { role: 'only' }
  | { role: 'active'; replicas: number }
  | { role: 'replica'; state: ReplicaState; lastSyncTime?: string; behindSeconds?: number; progress?: { doneBytes: string; totalBytes: string }; error?: string };

/** The copy `node` holds of a volume, or undefined when it holds none. */
export function copyOnNode(node: string, pinnedNode: string | null | undefined, annotations: Record<string, string> | undefined, now: Date): NodeCopy | undefined {
  const r = readReplication(annotations);
  if (r) {
    if (r.activeNode === node) return { role: 'active', replicas: r.replicas.filter((x) => x.state !== 'Fenced').length };
    const mine = r.replicas.find((x) => x.node === node);
    if (mine) {
      const behind = behindSeconds(mine, now);
      return {
        role: 'replica',
        state: mine.state,
        ...(mine.lastSyncTime ? { lastSyncTime: mine.lastSyncTime } : {}),
        ...(behind !== undefined ? { behindSeconds: behind } : {}),
        ...(mine.progress ? { progress: mine.progress } : {}),
        ...(mine.error ? { error: mine.error } : {}),
      };
    }
    return undefined;
  }
  return pinnedNode === node ? { role: 'only' } : undefined;
}
