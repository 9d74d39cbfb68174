// What the provisioning controllers (provisioner, deleter, pv-protection) share.
import type { Logger } from 'pino';
import type { AssetStore } from '../../provisioners/assets';
import type { PluginRegistry } from '../../provisioners/registry';
import type { ObjectStore } from '../../store/object-store';
import type { EventRecorder } from '../../services/event-recorder';

/** Upstream's event reasons (pkg/controller/volume/events). */
export const reasons = {
  provisioningFailed: 'ProvisioningFailed',
  provisioningSucceeded: 'ProvisioningSucceeded',
  provisioningCleanupFailed: 'ProvisioningCleanupFailed',
  volumeFailedDelete: 'VolumeFailedDelete',
  volumeDeleted: 'VolumeDeleted',
} as const;

/** The source.component of their Events, as upstream's in-tree PV controller. */
export const provisioningComponent = 'persistentvolume-controller';

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

/**
 * An error as one line a user can read: the database's own message rather than the client
 * library's invocation dump around it.
 */
export function errorText(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const db = /Message: `([^`]*)`/.exec(raw);
  return (db ? db[1] : raw).replace(/\s+/g, ' ').trim();
}
