// The reference a volume keeps to the claim it is bound to (or pre-bound for): upstream's
// reference.GetReference(claim), as the binder and placement's pre-bind both write it.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';

export function claimRefTo(claim: PersistentVolumeClaim) {
  return {
    kind: 'PersistentVolumeClaim',
    namespace: claim.metadata.namespace,
    name: claim.metadata.name,
    uid: claim.metadata.uid,
    apiVersion: 'v1',
    resourceVersion: claim.metadata.resourceVersion,
  };
}
