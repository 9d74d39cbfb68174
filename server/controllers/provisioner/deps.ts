// What the provisioning controllers (provisioner, deleter, pv-protection) share.
import type { Logger } from 'pino';
import type { AssetStore } from '../../store/provisioned-assets';
import type { PluginRegistry } from '../../provisioners/registry';
import type { KubeObject } from '../../resources/types';
import type { ObjectStore } from '../../store/object-store';
import type { ReconcileContext } from '../runtime/controller';
import { transact, writtenVersions, type ControllerTx } from '../runtime/controller-tx';
import type { EventRecorder, EventType } from '../../services/event-recorder';

export interface ProvisioningDeps {
  store: ObjectStore;
  plugins: PluginRegistry;
  assets: AssetStore;
  events: EventRecorder;
  log: Logger;
  /** The node whose assets this process may touch. */
  node: string;
  /** Attempts to save a provisioned PV before its asset is deleted (upstream: 5). */
  saveAttempts: number;
  /** Pause between those attempts (ms; upstream: 10 s). */
  saveIntervalMs: number;
  /** How often a plugin provisioning in the background is asked again (ms). */
  backgroundPollMs: number;
  /** An intent record untouched for this long may be settled by the periodic sweep (ms). */
  sweepGraceMs: number;
}

/** Runs one transaction and tells the runtime which versions it wrote (no echo reconcile). */
export async function write<T>(d: Pick<ProvisioningDeps, 'store'>, ctx: ReconcileContext, fn: (tx: ControllerTx) => Promise<T>): Promise<T> {
  let last: ControllerTx | undefined;
  const result = await transact(d.store, async (tx) => {
    last = tx;
    return fn(tx);
  });
  if (last) for (const rv of writtenVersions(last)) ctx.wrote(rv);
  return result;
}

export function event(d: ProvisioningDeps, obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
  return d.events.record(obj, type, reason, message);
}

/** Waits `ms`, or less when the controller stops. A retry pause, not synchronisation. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * An error as one line a user can read: the database's own message rather than the client
 * library's invocation dump around it.
 */
export function errorText(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const db = /Message: `([^`]*)`/.exec(raw);
  return (db ? db[1] : raw).replace(/\s+/g, ' ').trim();
}
