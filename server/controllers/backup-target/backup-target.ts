// The BackupTarget controller on the shared runtime. For each BackupTarget (key: its name)
// it reads the agents' latest reports on it (port TargetReports; the table behind it and
// the agent API are another part's), writes status (nodes, backups, bytes, Ready), and
// imports the backups another installation made in the target as read-only VolumeBackups.
// Reports are not in the change log: targets are looked at again every `resyncMs`.
import type { Logger } from 'pino';
import type { BackupSummary, TargetReport } from '../../contracts/data-jobs';
import { isStowageError } from '../../domain/errors';
import { conditionFailed, conditionProgressing, conditionReady } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import { volumeBackupFinalizer } from '../../domain/well-known/finalizers';
import { labelBackupId } from '../../domain/well-known/labels';
import { BACKUP_API_VERSION, type BackupTarget } from '../../resources/backup-target/schema';
import { deepEqual } from '../../resources/field-errors';
import type { VolumeBackup } from '../../resources/volume-backup/schema';
import type { EventRecorder } from '../../services/event-recorder';
import { dismissedImports } from '../../store/backup-imports';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { importsOf, targetStatus, type ImportPlan, type KnownBackup, type NodeReport } from './decide';
import { metaTime } from '../../domain/meta-time';

/** The agents' latest report per (node, target): implemented over table backup_target_reports. */
export interface TargetReports {
  list(): Promise<{ node: string; report: TargetReport; at: Date }[]>;
}

const BT = 'BackupTarget';
const VB = 'VolumeBackup';
export const backupTargetControllerName = 'backup-target';

export interface BackupTargetDeps {
  store: ObjectStore;
  log: Logger;
  reports: TargetReports;
  installation: () => Promise<string>;
  events: EventRecorder;
  now?: () => Date;
}

type Deps = Required<BackupTargetDeps>;

const iso = (s: string) => {
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : metaTime(t);
};

function importedBackup(target: string, p: ImportPlan): VolumeBackup {
  return {
    apiVersion: BACKUP_API_VERSION,
    kind: VB,
    metadata: { name: p.name, namespace: p.namespace, labels: { [labelBackupId]: p.summary.backupId }, finalizers: [volumeBackupFinalizer] },
    spec: { source: { persistentVolumeClaimName: p.summary.origin.claimName }, backupTargetName: target },
  };
}

function importedStatus(target: string, s: BackupSummary, now: string): NonNullable<VolumeBackup['status']> {
  const o = s.origin;
  return {
    phase: 'Completed',
    imported: true,
    backupId: s.backupId,
    backupTargetName: target,
    sourceClaimName: o.claimName,
    ...(o.snapshotName ? { snapshotName: o.snapshotName } : {}),
    ...(o.pvName ? { pvName: o.pvName } : {}),
    ...(o.storageClassName ? { storageClassName: o.storageClassName } : {}),
    ...(o.provisioner ? { provisioner: o.provisioner } : {}),
    format: s.format,
    sizeBytes: o.sizeBytes,
    totalBytes: s.totalBytes,
    doneBytes: s.totalBytes,
    progress: 100,
    ...(iso(s.createdAt) ? { startTime: iso(s.createdAt) } : {}),
    ...(iso(s.completedAt) ? { completionTime: iso(s.completedAt) } : {}),
    conditions: [
      { type: conditionReady, status: 'True', reason: 'Imported', message: `found in target ${target}, made by installation ${o.installation}`, lastTransitionTime: now },
      { type: conditionProgressing, status: 'False', reason: 'Completed', lastTransitionTime: now },
      { type: conditionFailed, status: 'False', reason: 'Completed', lastTransitionTime: now },
    ],
  };
}

async function importOne(d: Deps, ctx: ReconcileContext, target: BackupTarget, p: ImportPlan, now: string): Promise<void> {
  const name = target.metadata.name ?? '';
  try {
    const made = await write(d, ctx, async (tx) => {
      if (await tx.get(VB, p.namespace, p.name)) return undefined;
      const created = await tx.create(importedBackup(name, p));
      created.status = importedStatus(name, p.summary, now);
      return tx.update(created, { subresource: 'status' });
    });
    if (made) await event(d, made, 'Normal', reasons.backupImported, `Imported backup ${p.summary.backupId} from target ${name}, made by installation ${p.summary.origin.installation}`);
  } catch (e) {
    // A name from another installation's manifest that is not valid here: said on the target.
    if (isStowageError(e) && (e.code === 'Invalid' || e.code === 'AlreadyExists')) {
      await event(d, target, 'Warning', reasons.backupNotImported, `Backup ${p.summary.backupId} not imported as ${p.namespace}/${p.name}: ${e.message}`);
      return;
    }
    throw e;
  }
}

/** What was last said about each target's skipped backups: said again only when it changes (a resync every few seconds must not write an event each time). */
const lastSkipped = new WeakMap<Deps, Map<string, string>>();

async function sayNotImported(d: Deps, target: BackupTarget, skipped: BackupSummary[]): Promise<void> {
  const said = lastSkipped.get(d) ?? lastSkipped.set(d, new Map()).get(d)!;
  const name = target.metadata.name ?? '';
  const ids = skipped.map((s) => s.backupId).sort().join(',');
  if (said.get(name) === ids) return;
  said.set(name, ids);
  if (skipped.length === 0) return;
  const namespaces = [...new Set(skipped.map((s) => s.origin.namespace))].sort();
  const shown = namespaces.slice(0, 10).join(', ') + (namespaces.length > 10 ? `, and ${namespaces.length - 10} more` : '');
  const first = skipped[0];
  const which = skipped.length === 1 ? `Backup ${first.backupId} (${first.origin.namespace}/${first.origin.volumeBackupName}) not imported` : `${skipped.length} backups not imported`;
  await event(d, target, 'Warning', reasons.backupNotImported, `${which}: namespace${namespaces.length === 1 ? '' : 's'} ${shown} ${namespaces.length === 1 ? 'does' : 'do'} not exist here (create ${namespaces.length === 1 ? 'it' : 'them'} to import)`);
}

export async function syncTarget(d: Deps, ctx: ReconcileContext, name: string, resyncMs: number): Promise<ReconcileResult | void> {
  const target = await d.store.tryGet(BT, undefined, name);
  if (!target) return;
  const reports: NodeReport[] = await d.reports.list();
  const now = d.now();
  const status = targetStatus(target, reports, now);
  if (!deepEqual(status, target.status)) {
    await write(d, ctx, async (tx) => {
      const t = await tx.get(BT, undefined, name);
      if (!t || t.metadata.uid !== target.metadata.uid) return;
      t.status = status;
      await tx.update(t, { subresource: 'status' });
    });
  }
  if (!target.metadata.deletionTimestamp) {
    const backups = (await d.store.list(VB)).items;
    const known: KnownBackup[] = backups.map((b) => ({ name: b.metadata.name ?? '', namespace: b.metadata.namespace ?? '', uid: b.metadata.uid ?? '', importedId: b.metadata.labels?.[labelBackupId] }));
    const namespaces = new Set((await d.store.list('Namespace')).items.filter((n) => !n.metadata.deletionTimestamp).map((n) => n.metadata.name ?? ''));
    // Imports a person removed here count as known: never imported again.
    for (const id of await dismissedImports(d.store, name)) known.push({ name: '', namespace: '', uid: '', importedId: id });
    const { imports, skipped } = importsOf(target, reports, known, await d.installation(), namespaces);
    const stamp = metaTime(now);
    for (const p of imports) await importOne(d, ctx, target, p, stamp);
    await sayNotImported(d, target, skipped);
  }
  return { requeueAfter: resyncMs };
}

export function backupTargetSpec(deps: BackupTargetDeps, opts: { resyncMs?: number } = {}): ControllerSpec {
  const d: Deps = {
    ...deps,
    now: deps.now ?? (() => new Date()),
  };
  const resyncMs = opts.resyncMs ?? 15_000;
  const keys = async () => (await d.store.list(BT)).items.map((t) => t.metadata.name ?? '');
  return {
    name: backupTargetControllerName,
    concurrency: 1,
    watch: { kinds: [BT], keysFor: (e) => [e.name] },
    listKeys: keys,
    resync: { everyMs: resyncMs, listKeys: keys },
    reconcile: (key, ctx) => syncTarget(d, ctx, key, resyncMs),
  };
}
