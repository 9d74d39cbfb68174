// A write a store transaction has queued and applies at commit (flush.ts): shared by the
// transaction that queues it (store-tx.ts) and the statement that applies it.
import type { KubeObject, Strategy } from '../resources/types';

/** The verb a history row records. */
export type HistoryAction = 'create' | 'update' | 'status' | 'delete';

export interface PendingWrite {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  strategy: Strategy;
  object: KubeObject;
  id: string;
  action: HistoryAction;
  /** Who made it (filled in when queued). */
  actor?: string;
}
