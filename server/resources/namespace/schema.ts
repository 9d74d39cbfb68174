// Namespace (core/v1) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import { conditionSchema, kubeObjectSchema } from '../metadata';
import type { KindObject } from '../types';

export const namespaceSchema = kubeObjectSchema({
  spec: z.strictObject({ finalizers: z.array(z.string()).nullish() }).nullish(),
  status: z
    .strictObject({
      phase: z.string().nullish(),
      conditions: z.array(conditionSchema({})).nullish(),
    })
    .nullish(),
});

export type Namespace = KindObject<typeof namespaceSchema>;
