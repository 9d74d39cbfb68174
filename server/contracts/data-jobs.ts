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

// --- Replication of btrfs pool volumes (stowage.io/btrfs, class parameter `replicas`) --------
//
// One transfer moves one read-only snapshot from the volume's active copy (the primary) to
// one replica: a `replica-send` job on the primary's node and a `replica-receive` job on the
// replica's node, queued together, sharing a transfer id and a one-time key. The receiver's
// agent listens (its node's `replication.stowage.io/endpoint`); the sender connects to the
// address its job names and both prove they hold the key (TLS with that key as pre-shared
// key: a node sends only what the server assigned it, to the node it assigned, and accepts
// only the transfers assigned to it). A transfer counts as done when the receive job
// reports success. Paths follow server/domain/replication-paths.ts.

const seq = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const epoch = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const transferSchema = z.object({
  /** The transfer's id: the TLS PSK identity. */
  id: z.string().regex(/^[a-z0-9-]{1,64}$/),
  /** The one-time key (32 random bytes, hex): the TLS pre-shared key. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ReplicaTransfer = z.infer<typeof transferSchema>;
/** host:port (IPv6 in brackets): a replication listener's address. */
export const replicationEndpointSchema = z.string().min(3).max(300).regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/).refine((s) => Number(s.slice(s.lastIndexOf(':') + 1)) <= 65535, 'the port is above 65535');

const replicaJobSchemas = [
  z.object({
    kind: z.literal('replica-send'),
    pvName: id,
    /** The class's pool (the host's path; the agent maps it through its pool root). */
    pool: hostPath,
    /** The writable volume `<pool>/<pvName>` a snapshot is taken of. */
    volumePath: hostPath,
    seq,
    /** `<pool>/.stowage-replicas/<pv>/snap-<seq>`: taken read-only from volumePath unless it exists already (another replica's transfer of the same seq took it). */
    snapshotPath: hostPath,
    /** The snapshot the receiver holds already (an incremental send, `btrfs send -p`); absent: a full send. */
    parentPath: hostPath.optional(),
    epoch,
    receiver: z.object({ node: id, endpoint: replicationEndpointSchema }),
    transfer: transferSchema,
    /** Snapshots of this volume on this node that must stay (what replicas acknowledged, and this one); the others are removed before the snapshot is taken. */
    keep: z.array(hostPath).max(16),
  }),
  z.object({
    kind: z.literal('replica-receive'),
    pvName: id,
    pool: hostPath,
    seq,
    /** Where the received snapshot lands (`btrfs receive` into its folder). */
    snapshotPath: hostPath,
    /** The parent the stream is based on (must be here, received earlier); absent: a full stream. */
    parentPath: hostPath.optional(),
    epoch,
    sender: z.object({ node: id }),
    transfer: transferSchema,
    /** Snapshots of this volume on this node that must stay; the others are removed (after a successful receive). */
    keep: z.array(hostPath).max(16),
    /** How long to wait for the sender to connect before failing (retryable). */
    waitSeconds: z.number().int().min(1).max(3600),
  }),
  z.object({
    kind: z.literal('replica-remove'),
    pvName: id,
    pool: hostPath,
    epoch,
    /** Also delete the writable copy `<pool>/<pvName>` on this node (fencing a copy of an older epoch, or the volume is gone). */
    removeVolume: z.boolean(),
    /** Keep the replication snapshots (a fenced copy that becomes a replica resyncs from them); false removes the volume's snapshot folder. */
    keepSnapshots: z.boolean(),
  }),
] as const;

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
  ...replicaJobSchemas,
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
    /** replica-receive: the parent the stream needs is not on this node (the next transfer must be a full one). */
    parentMissing: z.boolean().optional(),
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
  /** New jobs it may take now (backups, restores, verifies, deletes; every kind when maxReplica is absent). */
  max: number;
  /** New replication jobs it may take now, a budget of their own (a receive waits for its sender). */
  maxReplica?: number;
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
