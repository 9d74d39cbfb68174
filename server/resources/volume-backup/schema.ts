// VolumeBackup (stowage.io/v1, namespaced): a copy of a claim's data, read from a
// VolumeSnapshot, kept in a BackupTarget. Spec is immutable; status is the controller's.
import { z } from 'zod';
import { conditionSchema, kubeObjectSchema } from '../metadata';
import type { KindObject } from '../types';
import { volumeSnapshotErrorSchema } from '../volume-snapshot/schema';

export const VOLUME_BACKUP_PHASES = ['Pending', 'InProgress', 'Completed', 'Failed'] as const;
export type VolumeBackupPhase = (typeof VOLUME_BACKUP_PHASES)[number];

export const volumeBackupSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      source: z
        .strictObject({
          volumeSnapshotName: z.string().nullish(),
          persistentVolumeClaimName: z.string().nullish(),
        })
        .nullish(),
      backupTargetName: z.string().nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      phase: z.string().nullish(),
      backupTargetName: z.string().nullish(),
      node: z.string().nullish(),
      snapshotName: z.string().nullish(),
      sourceClaimName: z.string().nullish(),
      pvName: z.string().nullish(),
      storageClassName: z.string().nullish(),
      provisioner: z.string().nullish(),
      format: z.string().nullish(),
      sizeBytes: z.string().nullish(),
      totalBytes: z.string().nullish(),
      doneBytes: z.string().nullish(),
      progress: z.number().int().nullish(),
      newBytes: z.string().nullish(),
      startTime: z.string().nullish(),
      completionTime: z.string().nullish(),
      imported: z.boolean().nullish(),
      /** The backup's id in its target (its manifest's name): for an imported backup, the id it has there (else this object's uid). */
      backupId: z.string().nullish(),
      attempts: z.number().int().nullish(),
      error: volumeSnapshotErrorSchema.nullish(),
      /** The last verify: every chunk read back and its hash checked (asked for with annotation backup.stowage.io/verify-requested). */
      verification: z
        .strictObject({
          /** The request it answers (the annotation's value). */
          requestedAt: z.string().nullish(),
          time: z.string().nullish(),
          /** Passed, Damaged (a chunk is not what its id says, or is missing), or Failed (could not be read through). */
          result: z.string().nullish(),
          chunks: z.number().int().nullish(),
          damagedChunk: z.string().nullish(),
          message: z.string().nullish(),
        })
        .nullish(),
      conditions: z.array(conditionSchema({})).nullish(),
    })
    .nullish(),
});

export type VolumeBackup = KindObject<typeof volumeBackupSchema>;
