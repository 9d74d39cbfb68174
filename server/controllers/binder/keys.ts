// The binder's work-queue keys: one per claim, per volume, and per StorageClass (a class
// change wakes the claims waiting for it).
import type { ChangeEvent } from '../../store/change-feed';

export type BinderKey =
  | { kind: 'claim'; namespace: string; name: string }
  | { kind: 'volume'; name: string }
  | { kind: 'class'; name: string };

export const claimKey = (namespace: string, name: string) => `pvc/${namespace}/${name}`;
export const volumeKey = (name: string) => `pv/${name}`;
export const classKey = (name: string) => `sc/${name}`;

export function parseKey(key: string): BinderKey | undefined {
  const [kind, a, b] = key.split('/');
  if (kind === 'pvc' && a !== undefined && b !== undefined) return { kind: 'claim', namespace: a, name: b };
  if (kind === 'pv' && a) return { kind: 'volume', name: a };
  if (kind === 'sc' && a) return { kind: 'class', name: a };
  return undefined;
}

/** Keys one change maps to (upstream's informer handlers of pv_controller_base.go). */
export function keysFor(e: ChangeEvent): string[] {
  switch (e.kind) {
    case 'PersistentVolumeClaim': {
      const keys = [claimKey(e.namespace, e.name)];
      const claim = e.object;
      // A deleted claim releases its volume.
      if (e.type === 'DELETED' && claim.spec?.volumeName) keys.push(volumeKey(claim.spec.volumeName));
      return keys;
    }
    case 'PersistentVolume': {
      const keys = [volumeKey(e.name)];
      const ref = e.object.spec?.claimRef;
      // A deleted volume loses its claim; a volume reserved for a claim wakes that claim.
      if (ref?.name && (e.type === 'DELETED' || !ref.uid)) keys.push(claimKey(ref.namespace ?? '', ref.name));
      return keys;
    }
    case 'StorageClass':
      return [classKey(e.name)];
    default:
      return [];
  }
}
