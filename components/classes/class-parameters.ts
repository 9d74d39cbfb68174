// A StorageClass's parameters as the dashboard shows them: values of keys that name
// secrets are masked, with no way to reveal them (the server also redacts them for
// anyone but admins). Pure.
import { isSecretParameter, REDACTED } from '@/server/domain/redaction';

export const MASK = '••••••';
const SECRETISH = /secret|password|token|credential|key$/i;

export function isMaskedParameter(key: string): boolean {
  return SECRETISH.test(key) || isSecretParameter(key);
}

export interface ParameterRow {
  key: string;
  value: string;
  masked: boolean;
}

export function parameterRows(parameters: Record<string, unknown> | undefined): ParameterRow[] {
  return Object.entries(parameters ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, v]) => {
      const masked = isMaskedParameter(key) || v === REDACTED;
      return { key, value: masked ? MASK : String(v ?? ''), masked };
    });
}

/** A copy of a StorageClass whose secret-naming parameter values are masked (for showing its YAML). */
export function maskClassSecrets<T extends { kind?: string; parameters?: Record<string, unknown> }>(obj: T): T {
  if (obj.kind !== 'StorageClass' || !obj.parameters) return obj;
  const parameters = Object.fromEntries(Object.entries(obj.parameters).map(([k, v]) => [k, isMaskedParameter(k) ? MASK : v]));
  return { ...obj, parameters };
}
