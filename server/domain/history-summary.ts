// What a change in an object's history means, in words, for the timeline: created,
// deletion requested, deleted, phase changes, binding, provisioning. Pure: it compares the
// object as written with the object as it was before (undefined for the first row known).
import { annBetaStorageProvisioner, annDynamicallyProvisioned, annStorageProvisioner } from './well-known/annotations';

/** An object as a history row holds it: JSON of any kind and any age, read defensively (parse boundary). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: a history row holds JSON of any kind and any age
type RowObject = Record<string, any>;

export interface Described {
  type: string;
  action: string;
  object: RowObject;
}

const PROVISIONER_ANNOTATIONS = [annStorageProvisioner, annBetaStorageProvisioner];

function claimRefOf(pv: RowObject | undefined): string | undefined {
  const ref = pv?.spec?.claimRef;
  if (!ref || typeof ref !== 'object' || !ref.name) return undefined;
  return `${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}

function provisionerOf(o: RowObject | undefined): string | undefined {
  const a = o?.metadata?.annotations ?? {};
  for (const k of PROVISIONER_ANNOTATIONS) if (typeof a[k] === 'string' && a[k]) return a[k];
  return undefined;
}

/** The notable things this change did, in order; never empty. */
export function describeChange(prev: RowObject | undefined, row: Described): string[] {
  const o = row.object ?? {};
  const out: string[] = [];
  if (row.type === 'DELETED') return ['Deleted'];
  if (row.type === 'ADDED') {
    out.push('Created');
    const by = o.metadata?.annotations?.[annDynamicallyProvisioned];
    if (o.kind === 'PersistentVolume' && typeof by === 'string' && by) out.push(`Provisioned by ${by}`);
  }
  if (row.action === 'delete' && o.metadata?.deletionTimestamp && !prev?.metadata?.deletionTimestamp) out.push('Deletion requested');
  const phase = o.status?.phase;
  const before = prev?.status?.phase;
  if (typeof phase === 'string' && phase !== before) out.push(before ? `Phase ${before} → ${phase}` : `Phase ${phase}`);
  if (o.kind === 'PersistentVolumeClaim') {
    const vol = o.spec?.volumeName;
    const was = prev?.spec?.volumeName;
    if (vol && vol !== was) out.push(`Bound to volume ${vol}`);
    if (!vol && was) out.push(`Unbound from volume ${was}`);
  }
  if (o.kind === 'PersistentVolume') {
    const ref = claimRefOf(o);
    const was = claimRefOf(prev);
    if (ref && ref !== was) out.push(`Claimed by ${ref}`);
    if (!ref && was) out.push(`Claim reference to ${was} cleared`);
  }
  const prov = provisionerOf(o);
  if (prov && prov !== provisionerOf(prev)) out.push(`Handed to provisioner ${prov}`);
  if (out.length === 0) out.push(row.action === 'status' ? 'Status updated' : row.action === 'delete' ? 'Deletion requested' : 'Updated');
  return out;
}
