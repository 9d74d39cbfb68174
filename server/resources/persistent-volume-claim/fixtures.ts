// A valid PersistentVolumeClaim the tests start from.
import type { PersistentVolumeClaim } from './schema';

export const claim: PersistentVolumeClaim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'team-a' },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '5Gi' } },
    storageClassName: 'fast',
  },
};
