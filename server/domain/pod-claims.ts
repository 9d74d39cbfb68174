// What the storage side needs to know about a pod: the claims it uses, whether it still
// counts as using them, and where it runs. Pure; importable by the browser.
import type { Pod } from '../resources/pod/schema';

export interface PodClaim {
  /** The pod's volume name. */
  volume: string;
  claimName: string;
  readOnly: boolean;
}

/** The claims the pod's volumes name, in volume order (a claim named twice appears twice). */
export function podClaims(pod: Pod): PodClaim[] {
  const out: PodClaim[] = [];
  const volumes: unknown = pod.spec?.volumes;
  if (!Array.isArray(volumes)) return out;
  for (const v of volumes) {
    const ref = v?.persistentVolumeClaim;
    if (ref && typeof ref.claimName === 'string' && ref.claimName !== '') {
      out.push({ volume: String(v.name ?? ''), claimName: ref.claimName, readOnly: ref.readOnly === true });
    }
  }
  return out;
}

/** The distinct claim names the pod uses. */
export function podClaimNames(pod: Pod): string[] {
  return [...new Set(podClaims(pod).map((c) => c.claimName))];
}

/** Upstream: a pod in phase Succeeded or Failed no longer uses its volumes. */
export function isPodTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Whether `pod` keeps claim `namespace/name` in use (pvc-protection-controller
 * semantics): same namespace, names the claim, and is not terminated.
 */
export function podUsesClaim(pod: Pod, namespace: string, name: string): boolean {
  if ((pod.metadata?.namespace ?? '') !== namespace) return false;
  if (isPodTerminated(pod)) return false;
  return podClaims(pod).some((c) => c.claimName === name);
}

/** The pods among `pods` that keep the claim in use, by name. */
export function podsUsingClaim(pods: Pod[], namespace: string, name: string): string[] {
  return pods
    .filter((p) => podUsesClaim(p, namespace, name))
    .map((p) => p.metadata?.name ?? '')
    .sort();
}

/**
 * The pods among `pods` that keep a claim from being deleted (pvc-protection): those that
 * use it and are placed on a node. Upstream's podUsesPVC counts only scheduled pods: the
 * kubelet sees a pod once it is scheduled, and will not start one whose claim is being
 * deleted, so an unscheduled pod never gets to use it.
 */
export function podsProtectingClaim(pods: Pod[], namespace: string, name: string): string[] {
  return podsUsingClaim(
    pods.filter((p) => typeof p.spec?.nodeName === 'string' && p.spec.nodeName !== ''),
    namespace,
    name,
  );
}
