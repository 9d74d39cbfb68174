// Rules and helpers PersistentVolume and PersistentVolumeClaim share.
import type { FieldError } from '../domain/errors';
import { child, forbidden, notSupported } from './field-errors';

export const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
export const supportedVolumeModes = ['Block', 'Filesystem'] as const;

/** Each mode supported; ReadWriteOncePod alone (upstream). Presence is checked by the caller. */
export function validateAccessModes(modes: string[], base: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    if (!(supportedAccessModes as readonly string[]).includes(mode)) {
      errs.push(notSupported(base, mode, supportedAccessModes));
    } else if (mode === 'ReadWriteOncePod') rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(forbidden(base, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

export function validateVolumeMode(mode: string | undefined, base: string): FieldError[] {
  if (mode === undefined || (supportedVolumeModes as readonly string[]).includes(mode)) return [];
  return [notSupported(child(base), mode, supportedVolumeModes)];
}
