// The core/v1 ResourceQuota shape (importable by the browser).
import { z } from 'zod';
import type { KindObject } from '../types';
import { kubeObjectSchema } from '../metadata';
import { resourceListSchema } from '../resource-list';

const scopedResourceSelectorRequirement = z.strictObject({
  scopeName: z.string().nullish(),
  operator: z.string().nullish(),
  values: z.array(z.string()).nullish(),
});

export const resourceQuotaSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      hard: resourceListSchema.nullish(),
      scopes: z.array(z.string()).nullish(),
      scopeSelector: z.strictObject({ matchExpressions: z.array(scopedResourceSelectorRequirement).nullish() }).nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      hard: resourceListSchema.nullish(),
      used: resourceListSchema.nullish(),
    })
    .nullish(),
});

export type ResourceQuota = KindObject<typeof resourceQuotaSchema>;
