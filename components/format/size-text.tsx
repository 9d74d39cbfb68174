// A size as people read it ("252 GiB"), with the exact quantity as its tooltip.
import type { HTMLAttributes } from 'react';
import { exactSize, formatSize, isSizeResource, type SizeInput } from './size';

export function SizeText({
  value,
  exact,
  ...rest
}: {
  value: SizeInput;
  /** The quantity as written, when `value` is its bytes. */
  exact?: string;
} & Omit<HTMLAttributes<HTMLSpanElement>, 'title' | 'children'>) {
  return (
    <span title={exact || exactSize(value)} {...rest}>
      {formatSize(value)}
    </span>
  );
}

/** An amount of a resource: a size for storage and memory, else the quantity as it is (a count). */
export function ResourceAmount({ resource, value }: { resource: string; value: string }) {
  return isSizeResource(resource) ? <SizeText value={value} /> : <>{value}</>;
}
