// A valid PersistentVolumeClaim the tests start from.
import type { KubeObject } from '../types';

export const claim: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'team-a' },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '5Gi' } },
    storageClassName: 'fast',
  },
};
