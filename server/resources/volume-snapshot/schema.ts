// VolumeSnapshot (snapshot.storage.k8s.io/v1) in the JSON shape of upstream's CRD
// (kubernetes-csi/external-snapshotter client/config/crd); unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema } from '../metadata';
import { quantitySchema } from '../resource-list';
import type { KindObject } from '../types';

/** status.error of a VolumeSnapshot and of a VolumeSnapshotContent. */
export const volumeSnapshotErrorSchema = z.strictObject({
  message: z.string().nullish(),
  time: z.string().nullish(),
});

export const volumeSnapshotSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      source: z
        .strictObject({
          persistentVolumeClaimName: z.string().nullish(),
          volumeSnapshotContentName: z.string().nullish(),
        })
        .nullish(),
      volumeSnapshotClassName: z.string().nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      boundVolumeSnapshotContentName: z.string().nullish(),
      creationTime: z.string().nullish(),
      error: volumeSnapshotErrorSchema.nullish(),
      readyToUse: z.boolean().nullish(),
      restoreSize: quantitySchema.nullish(),
      volumeGroupSnapshotName: z.string().nullish(),
    })
    .nullish(),
});

export type VolumeSnapshot = KindObject<typeof volumeSnapshotSchema>;
