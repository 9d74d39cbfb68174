// Node (core/v1) in its Kubernetes JSON shape: strict at the top, loose where Stowage does not look.
import { z } from 'zod';
import { conditionSchema, kubeObjectSchema } from '../metadata';
import { resourceListSchema } from '../resource-list';
import type { KindObject } from '../types';

const loose = z.looseObject({});

export const nodeSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      podCIDR: z.string().nullish(),
      podCIDRs: z.array(z.string()).nullish(),
      providerID: z.string().nullish(),
      unschedulable: z.boolean().nullish(),
      taints: z
        .array(
          z.strictObject({
            key: z.string().nullish(),
            value: z.string().nullish(),
            effect: z.string().nullish(),
            timeAdded: z.string().nullish(),
          }),
        )
        .nullish(),
      configSource: loose.nullish(),
      externalID: z.string().nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      capacity: resourceListSchema.nullish(),
      allocatable: resourceListSchema.nullish(),
      phase: z.string().nullish(),
      conditions: z.array(conditionSchema({ lastHeartbeatTime: z.string().nullish() })).nullish(),
      addresses: z.array(z.strictObject({ type: z.string().nullish(), address: z.string().nullish() })).nullish(),
      daemonEndpoints: loose.nullish(),
      nodeInfo: loose.nullish(),
      images: z.array(loose).nullish(),
      volumesInUse: z.array(z.string()).nullish(),
      volumesAttached: z.array(loose).nullish(),
      config: loose.nullish(),
      runtimeHandlers: z.array(loose).nullish(),
      features: loose.nullish(),
      declaredFeatures: z.array(z.string()).nullish(),
    })
    .nullish(),
});

export type Node = KindObject<typeof nodeSchema>;
