// The wire contract of data jobs: work that moves a volume's data between a node and a
// backup target, run by the agent of the node that holds the data (a backup reads a
// snapshot there; a restore fills a new volume there; verify and delete run on any node
// that mounts the target). The controllers queue a job (one row, its intent written before
// any byte moves); the agent of the job's node claims it under a lease its progress
// renews, runs it with the data mover (server/agent/backup/), and reports the result.
// Plain data only (JSON over the agent API, stored as-is); byte counts are decimal strings.
import { z } from 'zod';

/** What a backup reads: a directory tree (btrfs subvolume, host-path directory) or one image file (a loop volume). */
export const dataFormatSchema = z.enum(['files', 'image']);
export type DataFormat = z.infer<typeof dataFormatSchema>;

const hostPath = z.string().min(1).max(4096).startsWith('/');
const id = z.string().min(1).max(253);
const bytes = z.string().regex(/^\d{1,20}$/);

/** Where a backup came from, kept in its manifest (what another installation lists). */
export const backupOriginSchema = z.object({
  namespace: z.string().max(63),
  claimName: z.string().max(253),
  volumeBackupName: z.string().max(253),
  pvName: z.string().max(253).optional(),
  snapshotName: z.string().max(253).optional(),
  storageClassName: z.string().max(253).optional(),
  provisioner: z.string().max(253).optional(),
  /** The volume's size (its PV's capacity), the smallest claim a restore may ask for. */
  sizeBytes: bytes,
  /** The installation that made it (another one imports it read-only). */
  installation: z.string().max(253),
});
export type BackupOrigin = z.infer<typeof backupOriginSchema>;

export const dataJobSpecSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('backup'),
    /** The backup's id in the target: the VolumeBackup's uid (names the manifest). */
    backupId: id,
    targetPath: hostPath,
    format: dataFormatSchema,
    /** The snapshot's data on this node: a read-only subvolume or directory (files), or an image file. */
    sourcePath: hostPath,
    /** The previous completed backup of the same volume in this target, for incremental work. */
    parentBackupId: id.optional(),
    /** The previous backup's source snapshot, when it still exists on this node (btrfs: changed ranges by send --no-data). */
    parentSourcePath: hostPath.optional(),
    origin: backupOriginSchema,
  }),
  z.object({
    kind: z.literal('restore'),
    backupId: id,
    targetPath: hostPath,
    format: dataFormatSchema,
    /** The new volume's data on this node: its (empty) directory or subvolume, or its image file. */
    destinationPath: hostPath,
  }),
  z.object({ kind: z.literal('verify'), backupId: id, targetPath: hostPath }),
  /** Removes a backup's manifest, then collects chunks no manifest and no running backup references. */
  z.object({ kind: z.literal('delete'), backupId: id, targetPath: hostPath }),
]);
export type DataJobSpec = z.infer<typeof dataJobSpecSchema>;
export type DataJobKind = DataJobSpec['kind'];

export const dataJobProgressSchema = z.object({
  doneBytes: bytes,
  totalBytes: bytes,
  /** Bytes written to the target that it did not hold before (after dedupe and compression). */
  newBytes: bytes.optional(),
});
export type DataJobProgress = z.infer<typeof dataJobProgressSchema>;

export const dataJobResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    doneBytes: bytes,
    totalBytes: bytes,
    newBytes: bytes.optional(),
    /** Chunks the job read or wrote, and how many were new. */
    chunks: z.number().int().nonnegative().optional(),
    newChunks: z.number().int().nonnegative().optional(),
  }),
  z.object({
    ok: z.literal(false),
    /** What went wrong, for a person: names the backup and, for damage, the chunk. */
    error: z.string().max(4096),
    /** A damaged chunk (verify, restore): its id. */
    damagedChunk: z.string().max(128).optional(),
    /** false: trying again cannot help (damage, a missing backup); true: it may (I/O, a lost lease). */
    retryable: z.boolean(),
  }),
]);
export type DataJobResult = z.infer<typeof dataJobResultSchema>;

export type DataJobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A job as the controllers see it. */
export interface DataJob {
  /** Stable key chosen by who queued it, e.g. `backup/<uid>`, `restore/<pvName>`. */
  key: string;
  node: string;
  spec: DataJobSpec;
  state: DataJobState;
  attempt: number;
  progress?: DataJobProgress;
  result?: DataJobResult;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
}

/** The port the controllers use to queue and read jobs (implemented in server/store/data-jobs.ts). */
export interface DataJobQueue {
  /** Queues the job unless one with this key exists (then answers that one, unchanged). */
  ensure(key: string, node: string, spec: DataJobSpec): Promise<DataJob>;
  get(key: string): Promise<DataJob | undefined>;
  /** Forgets a finished job (its outcome was recorded on the object it served). */
  forget(key: string): Promise<void>;
  /** Queues a failed job again (a new attempt), keeping its key. */
  retry(key: string): Promise<void>;
}

/** An agent asking for data jobs (POST .../nodes/{node}/data-jobs/claim). */
export interface DataJobClaimInput {
  instance: string;
  /** Keys of jobs this instance is running (their leases are renewed). */
  running: string[];
  max: number;
}

/** A completed backup as a target lists it (from its manifest): what another installation imports. */
export const backupSummarySchema = z.object({
  backupId: id,
  origin: backupOriginSchema,
  format: dataFormatSchema,
  totalBytes: bytes,
  createdAt: z.string().max(64),
  completedAt: z.string().max(64),
});
export type BackupSummary = z.infer<typeof backupSummarySchema>;

/** An agent's look at one backup target (PUT .../nodes/{node}/backup-targets). */
export const targetReportSchema = z.object({
  name: id,
  path: hostPath,
  reachable: z.boolean(),
  writable: z.boolean(),
  freeBytes: bytes.optional(),
  totalBytes: bytes.optional(),
  reason: z.string().max(1024).optional(),
  backups: z.array(backupSummarySchema).max(10_000),
  storedBytes: bytes.optional(),
  logicalBytes: bytes.optional(),
});
export type TargetReport = z.infer<typeof targetReportSchema>;
export const targetReportsSchema = z.object({ targets: z.array(targetReportSchema).max(256) });
