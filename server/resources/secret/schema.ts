// Secret (core/v1) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema, stringMap } from '../metadata';
import type { KindObject } from '../types';

export const secretSchema = kubeObjectSchema({
  type: z.string().nullish(),
  data: stringMap.nullish(),
  stringData: stringMap.nullish(),
  immutable: z.boolean().nullish(),
});

export type Secret = KindObject<typeof secretSchema>;
