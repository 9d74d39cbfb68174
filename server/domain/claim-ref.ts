// The reference a volume keeps to the claim it is bound to (or pre-bound for): upstream's
// reference.GetReference(claim), as the binder and placement's pre-bind both write it.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
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

/** The key a volume is found under by the claim its claimRef names ("namespace/name"). */
export const claimRefKey = (namespace: string, name: string) => `${namespace}/${name}`;

/** The claimRefKey of the claim a volume is bound or reserved to, if any (an index of volumes by claim). */
export function claimRefKeys(pv: PersistentVolume): string[] {
  const ref = pv.spec?.claimRef;
  return ref?.name ? [claimRefKey(ref.namespace ?? '', ref.name)] : [];
}
