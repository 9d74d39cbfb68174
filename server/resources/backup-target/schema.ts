// BackupTarget (stowage.io/v1, cluster-scoped): a directory every node mounts (NFS in
// production) where backups are kept, and what the nodes' agents found there. Unknown fields rejected.
import { z } from 'zod';
import { conditionSchema, kubeObjectSchema } from '../metadata';
import type { KindObject } from '../types';

export const BACKUP_API_VERSION = 'stowage.io/v1';

export const backupTargetNodeSchema = z.strictObject({
  node: z.string().nullish(),
  reachable: z.boolean().nullish(),
  writable: z.boolean().nullish(),
  freeBytes: z.string().nullish(),
  totalBytes: z.string().nullish(),
  reason: z.string().nullish(),
  checkedAt: z.string().nullish(),
});

export const backupTargetSchema = kubeObjectSchema({
  spec: z
    .strictObject({
      path: z.string().nullish(),
      default: z.boolean().nullish(),
    })
    .nullish(),
  status: z
    .strictObject({
      nodes: z.array(backupTargetNodeSchema).nullish(),
      backups: z.number().int().nullish(),
      storedBytes: z.string().nullish(),
      logicalBytes: z.string().nullish(),
      conditions: z.array(conditionSchema({})).nullish(),
    })
    .nullish(),
});

export type BackupTarget = KindObject<typeof backupTargetSchema>;
