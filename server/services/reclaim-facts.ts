// The facts the reclaim center's rules (server/domain/reclaim.ts) decide on, read for one
// volume or one claim: the claim a volume's claimRef names, the claim a pre-bind targets,
// and the pods that use a claim. Shared by the overview (reclaim-overview.ts) and the
// actions (reclaim.ts).
import { podsUsingClaim } from '../domain/pod-claims';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Pod } from '../resources/pod/schema';
import type { ObjectStore } from '../store/object-store';
import { podsNamingClaim } from '../store/reclaim-queries';

const PVC = 'PersistentVolumeClaim';

/** An object's name as the center shows it: namespace/name for a claim, the name for a volume. */
export const label = (t: { namespace?: string; name: string }) => (t.namespace ? `${t.namespace}/${t.name}` : t.name);

/** A claim named as namespace/name (a pre-bind's target), or undefined when it is not one. */
export function parseClaimName(s: string | undefined): { namespace: string; name: string } | undefined {
  if (!s) return undefined;
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(s.trim());
  if (!m || m[1].length > 63 || m[3].length > 253) return undefined;
  return { namespace: m[1], name: m[3] };
}

/** Facts of a volume's decision: the claim its claimRef names and the pods using it. */
export async function volumeFacts(store: ObjectStore, pv: PersistentVolume, claimName?: string, podsByClaim?: Map<string, Pod[]>) {
  const ref = pv.spec?.claimRef;
  const claim = ref?.name ? await store.tryGet(PVC, ref.namespace ?? 'default', ref.name) : undefined;
  const ns = claim?.metadata.namespace ?? '';
  const cn = claim?.metadata.name ?? '';
  const naming = claim ? (podsByClaim ? (podsByClaim.get(`${ns}/${cn}`) ?? []) : await podsNamingClaim(store, ns, cn)) : [];
  const claimPods = podsUsingClaim(naming, ns, cn);
  const targetRef = parseClaimName(claimName);
  const target = targetRef ? await store.tryGet(PVC, targetRef.namespace, targetRef.name) : undefined;
  return { pv, claim, claimPods, target, targetName: targetRef ? label(targetRef) : claimName?.trim() || undefined };
}

/** `known`: the pods naming the claim when the caller read them already (the overview reads them all at once). */
export async function claimFacts(store: ObjectStore, claim: PersistentVolumeClaim, known?: Pod[]) {
  const pods = known ?? (await podsNamingClaim(store, claim.metadata.namespace!, claim.metadata.name!));
  return { claim, pods: podsUsingClaim(pods, claim.metadata.namespace!, claim.metadata.name!), podObjects: pods };
}
