// The `stowage backup` verbs on volume backups: create, list, restore, verify, delete,
// targets. They act through the same services as the API (ObjectService and BackupService),
// as the CLI's principal (the CLI holds the database, so it acts as an administrator), and
// answer with lines of text; every refusal is a StowageError with a sentence, never a stack.
import type { Principal } from '../domain/authorization';
import { mayRestoreInto, restoreNeed, isBackupFormat } from '../domain/backup-formats';
import { ageOf } from '../domain/duration';
import { StowageError } from '../domain/errors';
import { humanBytes } from '../domain/human-size';
import { isDNS1123Subdomain } from '../domain/names';
import { isNegative, isZero, parseQuantity, quantityToBytes } from '../domain/quantity';
import type { KubeObject } from '../resources/types';
import { annVerifyRequested } from '../domain/well-known/annotations';

/** Who the CLI acts as: it opens the database itself, so it may do what an administrator may. */
export const CLI_PRINCIPAL: Principal = { type: 'user', id: 'stowage-cli', name: 'stowage-cli', role: 'admin', namespaces: [] };

/** The fields of a VolumeBackup the verbs read (the kind's schema owns the rest). */
export interface BackupLike extends KubeObject {
  spec?: { source?: { volumeSnapshotName?: string; persistentVolumeClaimName?: string }; backupTargetName?: string };
  status?: {
    phase?: string;
    backupTargetName?: string;
    sourceClaimName?: string;
    storageClassName?: string;
    format?: string;
    sizeBytes?: string;
    progress?: number;
    newBytes?: string;
    imported?: boolean;
    error?: { message?: string };
  };
}

interface TargetLike extends KubeObject {
  spec?: { path?: string; default?: boolean };
  status?: {
    nodes?: { node: string; reachable?: boolean; writable?: boolean; freeBytes?: string; reason?: string }[];
    backups?: number;
    storedBytes?: string;
    logicalBytes?: string;
    conditions?: { type: string; status: string; message?: string }[];
  };
}

interface ClassLike extends KubeObject {
  provisioner?: string;
}

/** What the verbs use of the services. */
export interface BackupVerbDeps {
  objects: {
    get(p: Principal, kind: string, namespace: string | undefined, name: string): Promise<KubeObject>;
    list(p: Principal, kind: string, opts?: { namespace?: string }): Promise<{ items: KubeObject[] }>;
    create(p: Principal, obj: KubeObject): Promise<KubeObject>;
    delete(p: Principal, kind: string, namespace: string | undefined, name: string): Promise<{ deleted: boolean; object?: KubeObject }>;
  };
  backups: { requestVerify(p: Principal, namespace: string, name: string): Promise<KubeObject> };
  principal?: Principal;
  now?: () => Date;
}

function checkName(what: string, name: string): void {
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) throw new StowageError('BadRequest', `${what} "${name.slice(0, 80)}" is not a valid name: ${problems[0]}`);
}

/** A table as kubectl prints one: columns padded by the widest cell, three spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('   ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const size = (v: string | undefined): string => (v && /^\d+$/.test(v) ? humanBytes(BigInt(v)) : '-');

export function backupListTable(items: BackupLike[], now: Date, withNamespace: boolean): string {
  if (items.length === 0) return 'No volume backups.';
  const rows = [...items]
    .sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((b) => {
      const st = b.status ?? {};
      const src = b.spec?.source ?? {};
      const phase = b.metadata.deletionTimestamp ? 'Terminating' : (st.phase ?? 'Pending');
      return [
        ...(withNamespace ? [b.metadata.namespace ?? ''] : []),
        b.metadata.name ?? '',
        src.persistentVolumeClaimName ?? (src.volumeSnapshotName ? `snapshot/${src.volumeSnapshotName}` : (st.sourceClaimName ?? '')),
        st.backupTargetName ?? b.spec?.backupTargetName ?? '<default>',
        `${phase}${st.imported ? ' (imported)' : ''}`,
        phase === 'InProgress' ? `${Math.max(0, Math.min(100, Math.floor(st.progress ?? 0)))}%` : phase === 'Completed' ? '100%' : '-',
        size(st.sizeBytes),
        size(st.newBytes),
        ageOf(b.metadata.creationTimestamp, now),
      ];
    });
  return table([...(withNamespace ? ['NAMESPACE'] : []), 'NAME', 'SOURCE', 'TARGET', 'PHASE', 'PROGRESS', 'SIZE', 'NEW', 'AGE'], rows);
}

export function targetsTable(items: TargetLike[]): string {
  if (items.length === 0) return 'No backup targets. Make one: kubectl apply -f a BackupTarget with spec.path (see the README, Backups).';
  const rows = [...items]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((t) => {
      const st = t.status ?? {};
      const ready = st.conditions?.find((c) => c.type === 'Ready');
      const nodes = (st.nodes ?? []).map((n) => `${n.node}:${!n.reachable ? 'unreachable' : !n.writable ? 'read-only' : `ok(${size(n.freeBytes)} free)`}`).join(',');
      return [t.metadata.name ?? '', t.spec?.path ?? '', t.spec?.default ? 'true' : 'false', ready?.status ?? 'Unknown', String(st.backups ?? 0), size(st.storedBytes), size(st.logicalBytes), nodes || '-'];
    });
  return table(['NAME', 'PATH', 'DEFAULT', 'READY', 'BACKUPS', 'STORED', 'LOGICAL', 'NODES'], rows);
}

/** Bytes of a --size ("10Gi", "1500M", "1073741824"), refusing what is not a positive quantity. */
export function parseSizeOption(s: string): bigint {
  const q = parseQuantity(s.trim());
  if (!q || isNegative(q) || isZero(q)) throw new StowageError('BadRequest', `--size must be a positive quantity such as 10Gi, got "${s.slice(0, 40)}"`);
  return quantityToBytes(q);
}

/**
 * The class and size of a restore: the asked class (refused when it cannot take the
 * backup's format), else the backup's own class when it can, else the only fitting class;
 * the asked size (refused below the backup's), else the backup's size.
 */
export function restorePlan(b: BackupLike, classes: ClassLike[], opts: { className?: string; size?: string }): { className: string; storage: string } {
  const name = `${b.metadata.namespace}/${b.metadata.name}`;
  if (b.metadata.deletionTimestamp) throw new StowageError('Conflict', `volume backup ${name} is being deleted`);
  const st = b.status ?? {};
  if (st.phase !== 'Completed') throw new StowageError('Conflict', `volume backup ${name} is ${st.phase ?? 'Pending'}; only a Completed backup can be restored`);
  if (!isBackupFormat(st.format)) throw new StowageError('Conflict', `volume backup ${name} does not say its format yet`);
  const fits = classes.filter((c) => mayRestoreInto(st.format, c.provisioner)).map((c) => c.metadata.name ?? '');
  const need = restoreNeed(st.format);
  let className: string;
  if (opts.className) {
    const c = classes.find((k) => k.metadata.name === opts.className);
    if (!c) throw new StowageError('NotFound', `storage class "${opts.className}" not found`);
    if (!mayRestoreInto(st.format, c.provisioner)) {
      throw new StowageError('BadRequest', `class ${opts.className} (${c.provisioner ?? 'no provisioner'}) cannot take a ${st.format} backup: it needs ${need}${fits.length ? ` (here: ${fits.join(', ')})` : ''}`);
    }
    className = opts.className;
  } else if (st.storageClassName && fits.includes(st.storageClassName)) {
    className = st.storageClassName;
  } else if (fits.length === 1) {
    className = fits[0];
  } else if (fits.length === 0) {
    throw new StowageError('BadRequest', `no storage class can take a ${st.format} backup: it needs ${need}`);
  } else {
    throw new StowageError('BadRequest', `several classes can take this backup (${fits.join(', ')}); choose one with --class`);
  }
  const min = st.sizeBytes && /^\d+$/.test(st.sizeBytes) ? BigInt(st.sizeBytes) : undefined;
  if (opts.size !== undefined) {
    const want = parseSizeOption(opts.size);
    if (min !== undefined && want < min) throw new StowageError('BadRequest', `--size ${opts.size} is smaller than the backup (${humanBytes(min)}, ${min} bytes); a restore needs at least that`);
    return { className, storage: opts.size.trim() };
  }
  if (min === undefined) throw new StowageError('BadRequest', `volume backup ${name} does not say its size; give one with --size`);
  return { className, storage: String(min) };
}

export class BackupVerbs {
  private readonly p: Principal;
  private readonly now: () => Date;
  constructor(private readonly deps: BackupVerbDeps) {
    this.p = deps.principal ?? CLI_PRINCIPAL;
    this.now = deps.now ?? (() => new Date());
  }

  async create(namespace: string, claim: string, target?: string): Promise<string> {
    checkName('claim', claim);
    if (target) checkName('target', target);
    // The claim must exist: a clear 404 rather than a backup that fails later.
    await this.deps.objects.get(this.p, 'PersistentVolumeClaim', namespace, claim);
    const made = await this.deps.objects.create(this.p, {
      apiVersion: 'stowage.io/v1',
      kind: 'VolumeBackup',
      metadata: { generateName: `${claim.slice(0, 200).replace(/[.-]+$/, '')}-`, namespace },
      spec: { source: { persistentVolumeClaimName: claim }, ...(target ? { backupTargetName: target } : {}) },
    });
    const b = made as BackupLike;
    return `volumebackup ${namespace}/${made.metadata.name} created (claim ${claim}, target ${b.spec?.backupTargetName ?? target ?? 'the default'}); follow it with: stowage backup list -n ${namespace}`;
  }

  async list(namespace?: string): Promise<string> {
    const res = await this.deps.objects.list(this.p, 'VolumeBackup', { namespace });
    return backupListTable(res.items as BackupLike[], this.now(), namespace === undefined);
  }

  async restore(namespace: string, name: string, opts: { to: string; className?: string; size?: string }): Promise<string> {
    checkName('backup', name);
    checkName('claim', opts.to);
    const b = (await this.deps.objects.get(this.p, 'VolumeBackup', namespace, name)) as BackupLike;
    const classes = (await this.deps.objects.list(this.p, 'StorageClass')).items as ClassLike[];
    const plan = restorePlan(b, classes, opts);
    await this.deps.objects.create(this.p, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: opts.to, namespace },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: plan.className,
        resources: { requests: { storage: plan.storage } },
        dataSourceRef: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name },
      },
    });
    return `persistentvolumeclaim ${namespace}/${opts.to} created from volume backup ${name} (class ${plan.className}, ${plan.storage}); it binds once the data is restored: kubectl get pvc ${opts.to} -n ${namespace}`;
  }

  /**
   * Asks the controllers to verify the backup (every chunk read back, its hash checked) and
   * waits for their answer in status.verification: a damaged or unreadable backup is an
   * error naming the chunk; no answer within `waitMs` (no running controllers, no node that
   * reaches the target) says where to look.
   */
  async verify(namespace: string, name: string, waitMs = 10 * 60_000): Promise<string> {
    checkName('backup', name);
    const asked = (await this.deps.backups.requestVerify(this.p, namespace, name)).metadata.annotations?.[annVerifyRequested];
    const deadline = Date.now() + waitMs;
    for (;;) {
      const b = (await this.deps.objects.get(this.p, 'VolumeBackup', namespace, name)) as BackupLike & { status?: { verification?: { requestedAt?: string | null; result?: string | null; chunks?: number | null; message?: string | null } | null } };
      const v = b.status?.verification;
      if (v && v.requestedAt === asked) {
        if (v.result === 'Passed') return `volume backup ${namespace}/${name} verified: ${v.chunks ?? 'every'} chunks read back, each as its id says`;
        throw new Error(`volume backup ${namespace}/${name} ${v.result === 'Damaged' ? 'is damaged' : 'could not be verified'}: ${v.message ?? 'no reason given'}`);
      }
      if (Date.now() >= deadline) return `verify of volume backup ${namespace}/${name} requested, no answer yet (are the controllers running, and does a node reach its target?): kubectl describe volumebackup ${name} -n ${namespace}`;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async delete(namespace: string, name: string): Promise<string> {
    checkName('backup', name);
    const b = (await this.deps.objects.get(this.p, 'VolumeBackup', namespace, name)) as BackupLike;
    const res = await this.deps.objects.delete(this.p, 'VolumeBackup', namespace, name);
    const what = b.status?.imported ? 'only the object goes; its data stays in the target' : 'its data is removed from the target';
    return res.deleted ? `volumebackup ${namespace}/${name} deleted (${what})` : `volumebackup ${namespace}/${name} is being deleted (${what}); it goes once the target is cleaned`;
  }

  async targets(): Promise<string> {
    const res = await this.deps.objects.list(this.p, 'BackupTarget');
    return targetsTable(res.items as TargetLike[]);
  }
}
