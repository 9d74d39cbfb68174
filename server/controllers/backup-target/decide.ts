// The BackupTarget controller's decisions: the status from the agents' latest reports on
// the target, and which backups found in it are to be imported (made by another
// installation, not known here). Pure.
import type { BackupSummary, TargetReport } from '../../contracts/data-jobs';
import { conditionReady } from '../../domain/well-known/conditions';
import { importName } from '../../domain/volume-backup';
import type { BackupTarget } from '../../resources/backup-target/schema';
import { metaTime } from '../../domain/meta-time';

export type TargetStatus = NonNullable<BackupTarget['status']>;

export interface NodeReport {
  node: string;
  report: TargetReport;
  at: Date;
}

const iso = (d: Date) => metaTime(d);

/** The reports about this target (its name, at its current path), newest first. */
export function reportsOf(target: BackupTarget, reports: NodeReport[]): NodeReport[] {
  return reports
    .filter((r) => r.report.name === target.metadata.name && r.report.path === target.spec?.path)
    .sort((a, b) => b.at.getTime() - a.at.getTime() || a.node.localeCompare(b.node));
}

/** The status the reports give; `prev` keeps the Ready condition's transition time. */
export function targetStatus(target: BackupTarget, reports: NodeReport[], now: Date): TargetStatus {
  const mine = reportsOf(target, reports);
  const nodes = [...mine]
    .sort((a, b) => a.node.localeCompare(b.node))
    .map(({ node, report: r, at }) => ({
      node,
      reachable: r.reachable,
      writable: r.writable,
      ...(r.freeBytes !== undefined ? { freeBytes: r.freeBytes } : {}),
      ...(r.totalBytes !== undefined ? { totalBytes: r.totalBytes } : {}),
      reason: r.reason ?? '',
      checkedAt: iso(at),
    }));
  // The newest look from a node that reached the target says what it holds.
  const listing = mine.find((r) => r.report.reachable)?.report;
  const ok = nodes.filter((n) => n.reachable && n.writable);
  const ready = ok.length > 0;
  const message = ready
    ? `reachable and writable from ${ok.map((n) => n.node).join(', ')}`
    : nodes.length === 0
      ? 'no node has reported on this target yet'
      : nodes.map((n) => `${n.node}: ${n.reason || (n.reachable ? 'not writable' : 'not reachable')}`).join('; ');
  const old = target.status?.conditions?.find((c) => c.type === conditionReady);
  const status = ready ? 'True' : 'False';
  return {
    nodes,
    backups: listing?.backups.length ?? target.status?.backups ?? 0,
    ...(listing?.storedBytes !== undefined ? { storedBytes: listing.storedBytes } : target.status?.storedBytes ? { storedBytes: target.status.storedBytes } : {}),
    ...(listing?.logicalBytes !== undefined ? { logicalBytes: listing.logicalBytes } : target.status?.logicalBytes ? { logicalBytes: target.status.logicalBytes } : {}),
    conditions: [
      {
        type: conditionReady,
        status,
        reason: ready ? 'Reachable' : nodes.length === 0 ? 'NoReports' : 'Unreachable',
        message,
        lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : iso(now),
      },
    ],
  };
}

export interface KnownBackup {
  name: string;
  namespace: string;
  uid: string;
  /** label backup.stowage.io/id of an imported one. */
  importedId?: string;
}

export interface ImportPlan {
  summary: BackupSummary;
  namespace: string;
  name: string;
}

/**
 * The backups in the target to import: made by another installation, whose id is neither
 * the uid of a backup here nor the id an imported one carries. Names come from the origin
 * (with a suffix when taken). `namespaces`: those that exist here; others are `skipped`.
 */
export function importsOf(target: BackupTarget, reports: NodeReport[], known: KnownBackup[], installation: string, namespaces: ReadonlySet<string>): { imports: ImportPlan[]; skipped: BackupSummary[] } {
  const listing = reportsOf(target, reports).find((r) => r.report.reachable)?.report;
  const ids = new Set(known.flatMap((k) => [k.uid, ...(k.importedId ? [k.importedId] : [])]));
  const taken = new Map<string, Set<string>>();
  for (const k of known) (taken.get(k.namespace) ?? taken.set(k.namespace, new Set()).get(k.namespace)!).add(k.name);
  const imports: ImportPlan[] = [];
  const skipped: BackupSummary[] = [];
  for (const s of listing?.backups ?? []) {
    if (ids.has(s.backupId) || s.origin.installation === installation) continue;
    ids.add(s.backupId);
    if (!namespaces.has(s.origin.namespace)) {
      skipped.push(s);
      continue;
    }
    const names = taken.get(s.origin.namespace) ?? taken.set(s.origin.namespace, new Set()).get(s.origin.namespace)!;
    const name = importName(s.origin.volumeBackupName, s.backupId, names);
    names.add(name);
    imports.push({ summary: s, namespace: s.origin.namespace, name });
  }
  return { imports, skipped };
}
