// Pod (core/v1), the storage-relevant subset: which claims a pod uses, where it may run
// (nodeName, nodeSelector, nodeAffinity), how containers mount the volumes, and the
// phase/conditions. Stowage runs no containers, so everything else a real manifest carries
// (images, ports, env, probes, securityContext ...) is accepted and kept as sent.
import { z } from 'zod';
import type { KindObject } from '../types';
import { conditionSchema, kubeObjectSchema, stringMap } from '../metadata';
import { nodeSelectorSchema, nodeSelectorTermSchema } from '../node-selector';

const loose = z.looseObject({});

export const volumeMountSchema = z.looseObject({
  name: z.string().nullish(),
  mountPath: z.string().nullish(),
  subPath: z.string().nullish(),
  readOnly: z.boolean().nullish(),
});

export const volumeDeviceSchema = z.looseObject({
  name: z.string().nullish(),
  devicePath: z.string().nullish(),
});

export const containerSchema = z.looseObject({
  name: z.string().nullish(),
  image: z.string().nullish(),
  volumeMounts: z.array(volumeMountSchema).max(256).nullish(),
  volumeDevices: z.array(volumeDeviceSchema).max(256).nullish(),
});

export const podVolumeSchema = z.looseObject({
  name: z.string().nullish(),
  persistentVolumeClaim: z
    .strictObject({ claimName: z.string().nullish(), readOnly: z.boolean().nullish() })
    .nullish(),
});

const preferredTermSchema = z.strictObject({
  weight: z.number().int().nullish(),
  preference: nodeSelectorTermSchema.nullish(),
});

export const podAffinitySchema = z.looseObject({
  nodeAffinity: z
    .strictObject({
      requiredDuringSchedulingIgnoredDuringExecution: nodeSelectorSchema.nullish(),
      preferredDuringSchedulingIgnoredDuringExecution: z.array(preferredTermSchema).nullish(),
    })
    .nullish(),
});

export const podSpecSchema = z.looseObject({
  volumes: z.array(podVolumeSchema).max(1024).nullish(),
  initContainers: z.array(containerSchema).max(256).nullish(),
  containers: z.array(containerSchema).max(256).nullish(),
  nodeName: z.string().nullish(),
  nodeSelector: stringMap.nullish(),
  affinity: podAffinitySchema.nullish(),
  schedulerName: z.string().nullish(),
  restartPolicy: z.string().nullish(),
});

export const podConditionSchema = conditionSchema({ lastProbeTime: z.string().nullish() });

export const podStatusSchema = z.looseObject({
  phase: z.string().nullish(),
  conditions: z.array(podConditionSchema).nullish(),
  message: z.string().nullish(),
  reason: z.string().nullish(),
  hostIP: z.string().nullish(),
  podIP: z.string().nullish(),
  startTime: z.string().nullish(),
  containerStatuses: z.array(loose).nullish(),
  initContainerStatuses: z.array(loose).nullish(),
  nominatedNodeName: z.string().nullish(),
  qosClass: z.string().nullish(),
});

export const podSchema = kubeObjectSchema({
  spec: podSpecSchema.nullish(),
  status: podStatusSchema.nullish(),
});

export type Pod = KindObject<typeof podSchema>;

export const podPhases = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
