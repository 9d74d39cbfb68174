// StorageClass (storage.k8s.io/v1) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema, stringMap } from '../metadata';
import { topologySelectorTermSchema } from '../node-selector';
import type { KindObject } from '../types';

export const storageClassSchema = kubeObjectSchema({
  provisioner: z.string().nullish(),
  parameters: stringMap.nullish(),
  reclaimPolicy: z.string().nullish(),
  mountOptions: z.array(z.string()).nullish(),
  allowVolumeExpansion: z.boolean().nullish(),
  volumeBindingMode: z.string().nullish(),
  allowedTopologies: z.array(topologySelectorTermSchema).nullish(),
});

export type StorageClass = KindObject<typeof storageClassSchema>;
