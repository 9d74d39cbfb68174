// Event (core/v1, the legacy shape kubectl reads) in its Kubernetes JSON shape; unknown fields rejected.
import { z } from 'zod';
import { kubeObjectSchema } from '../metadata';
import { objectReferenceSchema } from '../persistent-volume/schema';
import type { KindObject } from '../types';

export const eventSchema = kubeObjectSchema({
  involvedObject: objectReferenceSchema.nullish(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  source: z.strictObject({ component: z.string().nullish(), host: z.string().nullish() }).nullish(),
  firstTimestamp: z.string().nullish(),
  lastTimestamp: z.string().nullish(),
  count: z.number().int().nullish(),
  type: z.string().nullish(),
  eventTime: z.string().nullish(),
  series: z.strictObject({ count: z.number().int().nullish(), lastObservedTime: z.string().nullish() }).nullish(),
  action: z.string().nullish(),
  related: objectReferenceSchema.nullish(),
  reportingComponent: z.string().nullish(),
  reportingInstance: z.string().nullish(),
});

export type Event = KindObject<typeof eventSchema>;
