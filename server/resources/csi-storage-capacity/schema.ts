// CSIStorageCapacity (storage.k8s.io/v1) in its Kubernetes JSON shape; unknown fields
// rejected. Stowage publishes one per node and btrfs class: the room a pool has for new
// volumes (`capacity`), and the largest volume that fits (`maximumVolumeSize`).
import { z } from 'zod';
import type { KindObject } from '../types';
import { kubeObjectSchema } from '../metadata';
import { labelSelectorSchema } from '../persistent-volume-claim/schema';
import { quantitySchema } from '../resource-list';

export const csiStorageCapacitySchema = kubeObjectSchema({
  nodeTopology: labelSelectorSchema.nullish(),
  storageClassName: z.string().nullish(),
  capacity: quantitySchema.nullish(),
  maximumVolumeSize: quantitySchema.nullish(),
});

export type CSIStorageCapacity = KindObject<typeof csiStorageCapacitySchema>;
