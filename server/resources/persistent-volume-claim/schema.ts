// PersistentVolumeClaim (core/v1) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import type { KindObject } from '../types';
import { conditionSchema, kubeObjectSchema, stringMap } from '../metadata';
import { resourceListSchema } from '../resource-list';

export const labelSelectorSchema = z.strictObject({
  matchLabels: stringMap.nullish(),
  matchExpressions: z
    .array(
      z.strictObject({
        key: z.string().nullish(),
        operator: z.string().nullish(),
        values: z.array(z.string()).nullish(),
      }),
    )
    .nullish(),
});

export const typedLocalObjectReferenceSchema = z.strictObject({
  apiGroup: z.string().nullish(),
  kind: z.string().nullish(),
  name: z.string().nullish(),
});

export const typedObjectReferenceSchema = z.strictObject({
  apiGroup: z.string().nullish(),
  kind: z.string().nullish(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
});

export const persistentVolumeClaimSpecSchema = z.strictObject({
  accessModes: z.array(z.string()).nullish(),
  selector: labelSelectorSchema.nullish(),
  resources: z
    .strictObject({
      requests: resourceListSchema.nullish(),
      limits: resourceListSchema.nullish(),
    })
    .nullish(),
  volumeName: z.string().nullish(),
  storageClassName: z.string().nullish(),
  volumeMode: z.string().nullish(),
  dataSource: typedLocalObjectReferenceSchema.nullish(),
  dataSourceRef: typedObjectReferenceSchema.nullish(),
  volumeAttributesClassName: z.string().nullish(),
});

const claimConditionSchema = conditionSchema({ lastProbeTime: z.string().nullish() });

export const persistentVolumeClaimStatusSchema = z.strictObject({
  phase: z.string().nullish(),
  accessModes: z.array(z.string()).nullish(),
  capacity: resourceListSchema.nullish(),
  conditions: z.array(claimConditionSchema).nullish(),
  allocatedResources: resourceListSchema.nullish(),
  allocatedResourceStatuses: stringMap.nullish(),
  currentVolumeAttributesClassName: z.string().nullish(),
  modifyVolumeStatus: z
    .strictObject({ targetVolumeAttributesClassName: z.string().nullish(), status: z.string().nullish() })
    .nullish(),
});

export const persistentVolumeClaimSchema = kubeObjectSchema({
  spec: persistentVolumeClaimSpecSchema.nullish(),
  status: persistentVolumeClaimStatusSchema.nullish(),
});

export type PersistentVolumeClaim = KindObject<typeof persistentVolumeClaimSchema>;

export const claimPhases = ['Bound', 'Lost', 'Pending'] as const;
