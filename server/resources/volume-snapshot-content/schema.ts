// VolumeSnapshotContent (snapshot.storage.k8s.io/v1) in the JSON shape of upstream's CRD
// (kubernetes-csi/external-snapshotter client/config/crd); unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema } from '../metadata';
import { volumeSnapshotErrorSchema } from '../volume-snapshot/schema';
import type { KindObject } from '../types';

export const volumeSnapshotContentSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      deletionPolicy: z.string().nullish(),
      driver: z.string().nullish(),
      source: z
        .strictObject({
          snapshotHandle: z.string().nullish(),
          volumeHandle: z.string().nullish(),
        })
        .nullish(),
      sourceVolumeMode: z.string().nullish(),
      volumeSnapshotClassName: z.string().nullish(),
      volumeSnapshotRef: z
        .strictObject({
          apiVersion: z.string().nullish(),
          fieldPath: z.string().nullish(),
          kind: z.string().nullish(),
          name: z.string().nullish(),
          namespace: z.string().nullish(),
          resourceVersion: z.string().nullish(),
          uid: z.string().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      // Unix nanoseconds (int64): beyond a double's exact integers, so not checked as a safe integer.
      creationTime: z.number().nullish(),
      error: volumeSnapshotErrorSchema.nullish(),
      readyToUse: z.boolean().nullish(),
      restoreSize: z.number().int().nullish(),
      snapshotHandle: z.string().nullish(),
      volumeGroupSnapshotHandle: z.string().nullish(),
    })
    .nullish(),
});

export type VolumeSnapshotContent = KindObject<typeof volumeSnapshotContentSchema>;
