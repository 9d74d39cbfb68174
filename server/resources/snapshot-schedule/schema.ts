// SnapshotSchedule (snapshot.stowage.io/v1, namespaced): Stowage's own kind for snapshots
// taken on a schedule and pruned by count. Unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema } from '../metadata';
import { labelSelectorSchema } from '../persistent-volume-claim/schema';
import type { KindObject } from '../types';

export const SNAPSHOT_SCHEDULE_API_VERSION = 'snapshot.stowage.io/v1';

export const snapshotScheduleSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      every: z.string().nullish(),
      keep: z.number().int().nullish(),
      target: z
        .strictObject({
          claimName: z.string().nullish(),
          selector: labelSelectorSchema.nullish(),
        })
        .nullish(),
      snapshotClassName: z.string().nullish(),
      suspend: z.boolean().nullish(),
      /** Each snapshot taken is also backed up (a VolumeBackup); the newest `keep` Completed backups per claim are kept. */
      backup: z
        .strictObject({
          /** The BackupTarget; the default target when unset. */
          targetName: z.string().nullish(),
          keep: z.number().int().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      /** The start of the last slot in which the schedule took its snapshots. */
      lastScheduleTime: z.string().nullish(),
      /** When the schedule last created a snapshot (a slot's snapshot may be taken well after the slot began). */
      lastSnapshotTime: z.string().nullish(),
      nextScheduleTime: z.string().nullish(),
      /** Claims the schedule snapshots now. */
      claims: z.array(z.string()).nullish(),
      /** Why nothing was taken in the last slot, if so. */
      message: z.string().nullish(),
    })
    .nullish(),
});

export type SnapshotSchedule = KindObject<typeof snapshotScheduleSchema>;
