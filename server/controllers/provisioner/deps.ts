// What the provisioner shares with the controllers of its plugins' volumes (expander, volume-usage).
import type { Logger } from 'pino';
import type { AssetStore } from '../../store/provisioned-assets';
import type { PluginRegistry } from '../../provisioners/registry';
import type { ObjectStore } from '../../store/object-store';
import type { EventRecorder } from '../../services/event-recorder';
import type { TxBatcher } from '../runtime/tx-batcher';
import type { DataJobQueue } from '../../contracts/data-jobs';
import type { BackupFacts } from '../../domain/restore-from-backup';

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
  /**
   * When set, provisioned PVs are saved through it: the saves of many claims share
   * transactions (a save's only direct SQL, adopting its intent record, changes nothing
   * when the save gives up, so it may share a transaction with others).
   */
  saves?: TxBatcher;
  /** Restores from VolumeBackups (restore.ts); without it such a claim is refused with a message. */
  restores?: RestoreDeps;
}

/** What restoring needs beyond provisioning: the backups (read as plain facts), the targets' paths, and the data job queue. */
export interface RestoreDeps {
  backups: { get(namespace: string, name: string): Promise<BackupFacts | undefined> };
  /** A BackupTarget's path (spec.path), undefined when there is no such target. */
  targetPath(name: string): Promise<string | undefined>;
  jobs: DataJobQueue;
  /** Pause between two looks at a running job (ms; default 1 s). */
  pollMs?: number;
}

