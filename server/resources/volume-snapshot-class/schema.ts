// VolumeSnapshotClass (snapshot.storage.k8s.io/v1) in the JSON shape of upstream's CRD
// (kubernetes-csi/external-snapshotter client/config/crd); unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema, stringMap } from '../metadata';
import type { KindObject } from '../types';

export const volumeSnapshotClassSchema = kubeObjectSchema({
  driver: z.string().nullish(),
  parameters: stringMap.nullish(),
  deletionPolicy: z.string().nullish(),
});

export type VolumeSnapshotClass = KindObject<typeof volumeSnapshotClassSchema>;
