// ConfigMap (core/v1) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema, stringMap } from '../metadata';
import type { KindObject } from '../types';

export const configMapSchema = kubeObjectSchema({
  data: stringMap.nullish(),
  binaryData: stringMap.nullish(),
  immutable: z.boolean().nullish(),
});

export type ConfigMap = KindObject<typeof configMapSchema>;
