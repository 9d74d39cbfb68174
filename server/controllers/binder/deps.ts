// What the binder's reconcile functions share.
import type { ObjectStore } from '../../store/object-store';
import type { EventRecorder } from '../../services/event-recorder';
import type { TxBatcher } from '../runtime/tx-batcher';
import type { ClassCache } from './classes';

export interface BinderDeps {
  store: ObjectStore;
  /** Every write of the binder goes through it (many reconciles per transaction). */
  batcher: TxBatcher;
  events: EventRecorder;
  classes: ClassCache;
  /** Provisioner names handled by in-tree plugins (no ExternalProvisioning event for them). */
  inTreeProvisioners: ReadonlySet<string>;
  /**
   * A claim that finds no volume waits this long before its explanation is written (and
   * events sent), so that a burst of claims racing their volumes causes no write storm.
   */
  pendingGraceMs: number;
  /** When each claim first found no volume (in memory; losing it only writes sooner). */
  firstNoMatch: Map<string, number>;
  now(): Date;
}
