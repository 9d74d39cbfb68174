// The controllers' Event recorders, built in one place: one recorder per component (the
// Events' source.component), shared by every controller of the process that reports as
// that component, so their similar events are correlated together (services/event-recorder.ts).
// The components whose Events follow writes on hot paths (a bind, a provision, a pod
// placed) have their Events written in shared transactions, as client-go's broadcaster
// batches them. start.ts and provisioning-start.ts make one EventRecorders and hand each
// controller its recorder through its deps.
import type { Logger } from 'pino';
import { persistentVolumeControllerComponent, schedulerComponent } from '../../domain/well-known/components';
import { EventRecorder } from '../../services/event-recorder';
import type { ObjectStore } from '../../store/object-store';
import { TxBatcher } from './tx-batcher';

/**
 * Components whose Events share transactions (many reconciles' Events in one), and how many
 * of those transactions may be in flight: the PV controller's recorder serves the binder and
 * the provisioning controllers together (they had one transaction in flight each).
 */
const batchedComponents: ReadonlyMap<string, { parallel: number }> = new Map([
  [persistentVolumeControllerComponent, { parallel: 2 }],
  [schedulerComponent, { parallel: 1 }],
]);

export class EventRecorders {
  private readonly recorders = new Map<string, EventRecorder>();

  constructor(
    private readonly store: ObjectStore,
    private readonly log: Logger,
  ) {}

  /** The recorder of `component`, made on first use. */
  for(component: string): EventRecorder {
    let r = this.recorders.get(component);
    if (!r) {
      const batched = batchedComponents.get(component);
      const writes = batched ? new TxBatcher(this.store, { maxBatch: 64, parallel: batched.parallel }) : undefined;
      r = new EventRecorder(this.store, component, this.log, writes && ((fn) => writes.run(fn)));
      this.recorders.set(component, r);
    }
    return r;
  }
}
