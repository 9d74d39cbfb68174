// StorageClass parameters are opaque to developers, and those that name secrets are
// never shown to anyone but admins (seed 000, "Security considerations").
import type { Principal } from './authorization';

export const REDACTED = '(redacted)';

/** Parameter keys that name or hold secrets (e.g. csi.storage.k8s.io/provisioner-secret-name). */
export function isSecretParameter(key: string): boolean {
  return /secret|password|passwd|token|credential|private|(^|[-_./])key$/i.test(key);
}

export function mayReadSecrets(p: Principal): boolean {
  return p.role === 'admin';
}

/** A copy of a StorageClass with secret-naming parameter values replaced, for non-admins. */
export function redactStorageClass<T extends { kind?: string; parameters?: Record<string, string> }>(p: Principal, obj: T): T {
  if (obj.kind !== 'StorageClass' || !obj.parameters || mayReadSecrets(p)) return obj;
  const parameters: Record<string, string> = {};
  let changed = false;
  for (const [k, v] of Object.entries(obj.parameters)) {
    if (isSecretParameter(k)) {
      parameters[k] = REDACTED;
      changed = true;
    } else {
      parameters[k] = v;
    }
  }
  return changed ? { ...obj, parameters } : obj;
}
