// Matching a claim to a volume: the algorithm of seed 004 "Matching and binding", with
// upstream's details (pkg/controller/volume/persistentvolume/index.go and
// component-helpers/storage/volume/pv_helpers.go FindMatchingVolume):
//
//  1. only volumes whose access modes include all the claim's are considered;
//  2. they are grouped by access-mode set, closest set first (fewest modes; equal counts by
//     the set's bits, RWO=1 ROX=2 RWX=4 RWOP=8), and the first group with a match wins;
//  3. in a group, a volume pre-bound to the claim (claimRef by name and namespace, and by
//     uid when the claimRef has one) wins when it is large enough, has the claim's volume
//     mode, is not being deleted (and fits the node, when there is one);
//  4. other volumes annotated for (alpha) dynamic provisioning are skipped;
//  5. volumes with any other claimRef are skipped (bound, released, or reserved);
//  6. volumes whose labels the claim's selector does not match are skipped;
//  7. volumes of another class are skipped (no class = "", which also a claim asking for
//     "" or for nothing has); volumes not Available are skipped (upstream);
//  8. of the rest, the smallest volume at least as large as the request wins (equal sizes:
//     by name, so the choice is deterministic).
// Pure: no I/O. Every rule reports a failure with a sentence, for "why is my claim Pending".
import { abbreviateAccessModes, accessModesToBits } from './access-modes';
import { labelSelectorToSelector, matchesSelector, selectorToString } from './label-selector';
import { compareQuantities, formatQuantity, parseQuantity, quantityFromJSON, type Quantity } from './quantity';
import type { NodeSelectorRequirement, NodeSelectorTerm, PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { annAlphaStorageClass, annBetaStorageClass } from './well-known/annotations';

export type Rule =
  | 'accessModes'
  | 'claimRef'
  | 'capacity'
  | 'volumeMode'
  | 'deleting'
  | 'nodeAffinity'
  | 'provisioning'
  | 'delayBinding'
  | 'phase'
  | 'selector'
  | 'storageClass';

export interface Failure {
  rule: Rule;
  message: string;
}

export interface MatchOptions {
  /** The node the claim's consumer runs on (scheduler path): volumes must fit it. */
  node?: { name: string; labels: Record<string, string> };
  /** The class binds on first consumer and no node is known: only pre-bound volumes bind. */
  delayBinding?: boolean;
}

export interface Verdict {
  /** The volume's claimRef names this claim (and its uid, when the claimRef has one). */
  prebound: boolean;
  /** Every rule the volume fails for this claim; empty = it can serve the claim. */
  failures: Failure[];
}

export interface Match {
  volume: PersistentVolume;
  prebound: boolean;
}

const ZERO = parseQuantity('0') as Quantity;

/** The volume's class: the beta annotation wins over spec.storageClassName; "" = none. */
export function volumeClass(pv: PersistentVolume): string {
  return pv.metadata?.annotations?.[annBetaStorageClass] ?? pv.spec?.storageClassName ?? '';
}

/** The class the claim asks for: the beta annotation wins; "" when it asks for none. */
export function claimClass(pvc: PersistentVolumeClaim): string {
  return pvc.metadata?.annotations?.[annBetaStorageClass] ?? pvc.spec?.storageClassName ?? '';
}

/** Whether the claim names a class at all ("" counts; a missing field does not). */
export function claimHasClass(pvc: PersistentVolumeClaim): boolean {
  return pvc.metadata?.annotations?.[annBetaStorageClass] !== undefined || typeof pvc.spec?.storageClassName === 'string';
}

export function requestedStorage(pvc: PersistentVolumeClaim): Quantity {
  return quantityFromJSON(pvc.spec?.resources?.requests?.storage) ?? ZERO;
}

export function volumeStorage(pv: PersistentVolume): Quantity {
  return quantityFromJSON(pv.spec?.capacity?.storage) ?? ZERO;
}

/** Upstream IsVolumeBoundToClaim. */
export function isVolumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if ((ref.name ?? '') !== pvc.metadata?.name || (ref.namespace ?? '') !== (pvc.metadata?.namespace ?? '')) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

/** Every valid access-mode set (RWOP stands alone), as bits. */
const VALID_SETS = [1, 2, 3, 4, 5, 6, 7, 8];

function popcount(n: number): number {
  let c = 0;
  for (let v = n; v; v >>= 1) c += v & 1;
  return c;
}

function closestFirst(a: number, b: number): number {
  return popcount(a) - popcount(b) || a - b;
}

/** Access-mode sets (bits) that contain every requested mode, closest first. */
export function accessModeGroups(claimModes: string[], present: number[] = VALID_SETS): number[] {
  const want = accessModesToBits(claimModes);
  return [...new Set(present)].filter((set) => set !== 0 && (set & want) === want).sort(closestFirst);
}

const modeOf = (spec: { volumeMode?: string } | undefined) => spec?.volumeMode ?? 'Filesystem';
const show = (q: Quantity) => formatQuantity(q);
const claimKey = (ref: { namespace?: string; name?: string }) => `${ref?.namespace ?? ''}/${ref?.name ?? ''}`;

export interface NodeView {
  name: string;
  labels: Record<string, string>;
}

/** Whether a node satisfies a list of node selector terms (ORed; an empty term matches nothing). */
export function nodeMatchesTerms(terms: NodeSelectorTerm[], node: NodeView): boolean {
  const value = (key: string) => (Object.hasOwn(node.labels, key) ? node.labels[key] : undefined);
  const test = (req: NodeSelectorRequirement, get: (k: string) => string | undefined) => {
    // Validation requires a key on every stored requirement; '' is no label or field.
    const v = get(req?.key ?? '');
    const values: string[] = Array.isArray(req?.values) ? req.values : [];
    switch (req?.operator) {
      case 'In':
        return v !== undefined && values.includes(v);
      case 'NotIn':
        return v === undefined || !values.includes(v);
      case 'Exists':
        return v !== undefined;
      case 'DoesNotExist':
        return v === undefined;
      case 'Gt':
      case 'Lt': {
        if (v === undefined || values.length !== 1 || !/^-?\d+$/.test(v) || !/^-?\d+$/.test(values[0])) return false;
        return req.operator === 'Gt' ? BigInt(v) > BigInt(values[0]) : BigInt(v) < BigInt(values[0]);
      }
      default:
        return false;
    }
  };
  const field = (k: string) => (k === 'metadata.name' ? node.name : undefined);
  return terms.some((t) => {
    const exprs = t?.matchExpressions ?? [];
    const fields = t?.matchFields ?? [];
    if (exprs.length + fields.length === 0) return false;
    return exprs.every((r) => test(r, value)) && fields.every((r) => test(r, field));
  });
}

/** Upstream CheckNodeAffinity: a volume without required node affinity fits every node. */
export function volumeFitsNode(pv: PersistentVolume, node: NodeView): boolean {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms) return true;
  return nodeMatchesTerms(terms, node);
}

const nodeFits = volumeFitsNode;

type ClaimRef = NonNullable<NonNullable<PersistentVolume['spec']>['claimRef']>;

function claimRefFailure(pvc: PersistentVolumeClaim, pv: PersistentVolume, ref: ClaimRef): Failure {
  const who = `claim ${claimKey(ref)}`;
  const phase = pv.status?.phase;
  if (ref.name === pvc.metadata?.name && (ref.namespace ?? '') === (pvc.metadata?.namespace ?? '')) {
    return { rule: 'claimRef', message: `belongs to an earlier claim named ${claimKey(ref)} (uid ${ref.uid}), not to this one` };
  }
  if (phase === 'Released') {
    return { rule: 'claimRef', message: `was released by ${who}; a Released volume is not reused automatically` };
  }
  if (!ref.uid) return { rule: 'claimRef', message: `is reserved for ${who} (spec.claimRef)` };
  if (phase === 'Bound') return { rule: 'claimRef', message: `is bound to ${who}` };
  return { rule: 'claimRef', message: `is claimed by ${who} (uid ${ref.uid})` };
}

/** Checks one volume against the claim; every failed rule is reported, in the seed's order. */
export function evaluateVolume(pvc: PersistentVolumeClaim, pv: PersistentVolume, opts: MatchOptions = {}): Verdict {
  const failures: Failure[] = [];
  const prebound = isVolumeBoundToClaim(pv, pvc);
  const claimModes: string[] = pvc.spec?.accessModes ?? [];
  const volumeModes: string[] = pv.spec?.accessModes ?? [];
  if (!claimModes.every((m) => volumeModes.includes(m))) {
    failures.push({
      rule: 'accessModes',
      message: `access modes ${abbreviateAccessModes(volumeModes) || 'none'} do not include the requested ${abbreviateAccessModes(claimModes)}`,
    });
  }
  if (pv.spec?.claimRef && !prebound) failures.push(claimRefFailure(pvc, pv, pv.spec.claimRef));
  const want = requestedStorage(pvc);
  const have = volumeStorage(pv);
  if (compareQuantities(have, want) < 0) {
    failures.push({ rule: 'capacity', message: `capacity ${show(have)} is less than the requested ${show(want)}` });
  }
  if (modeOf(pvc.spec) !== modeOf(pv.spec)) {
    failures.push({ rule: 'volumeMode', message: `volume mode ${modeOf(pv.spec)} differs from the requested ${modeOf(pvc.spec)}` });
  }
  if (pv.metadata?.deletionTimestamp) failures.push({ rule: 'deleting', message: 'is being deleted' });
  if (opts.node && !nodeFits(pv, opts.node)) {
    failures.push({ rule: 'nodeAffinity', message: `node affinity does not allow node ${opts.node.name}` });
  }
  if (prebound) return { prebound, failures };

  if (pv.metadata?.annotations?.[annAlphaStorageClass] !== undefined) {
    failures.push({ rule: 'provisioning', message: `is annotated ${annAlphaStorageClass} and waits for dynamic provisioning` });
  }
  if (opts.delayBinding && !opts.node) {
    failures.push({ rule: 'delayBinding', message: 'the class binds on first consumer, and no consumer is known yet' });
  }
  const phase = pv.status?.phase ?? 'Pending';
  if (phase !== 'Available' && !pv.spec?.claimRef) {
    failures.push({ rule: 'phase', message: `is ${phase}; only Available volumes are bound` });
  }
  failures.push(...selectorFailures(pvc, pv));
  const wanted = claimClass(pvc);
  const cls = volumeClass(pv);
  if (cls !== wanted) {
    const mine = cls ? `storage class "${cls}"` : 'no storage class';
    const theirs = wanted ? `"${wanted}"` : 'none';
    failures.push({ rule: 'storageClass', message: `has ${mine}; the claim asks for ${theirs}` });
  }
  return { prebound, failures };
}

function selectorFailures(pvc: PersistentVolumeClaim, pv: PersistentVolume): Failure[] {
  const ls = pvc.spec?.selector;
  if (ls === undefined || ls === null) return [];
  let selector;
  try {
    selector = labelSelectorToSelector(ls);
  } catch (e) {
    return [{ rule: 'selector', message: `the claim's selector is invalid: ${(e as Error).message}` }];
  }
  if (matchesSelector(selector, pv.metadata?.labels)) return [];
  const labels = Object.entries(pv.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [
    {
      rule: 'selector',
      message: `labels {${labels.join(',')}} do not match the claim's selector ${selectorToString(selector) || '(matches nothing)'}`,
    },
  ];
}

/**
 * Upstream checkVolumeSatisfyClaim, for a claim that names its volume (spec.volumeName):
 * deletion, size, class, volume mode and access modes; not the selector, not the phase.
 * Returns upstream's messages, first failure first; empty when the volume fits.
 */
export function checkRequestedVolume(pvc: PersistentVolumeClaim, pv: PersistentVolume): string[] {
  const problems: string[] = [];
  if (pv.metadata?.deletionTimestamp) problems.push(`the volume is marked for deletion "${pv.metadata.name}"`);
  if (compareQuantities(volumeStorage(pv), requestedStorage(pvc)) < 0) problems.push('requested PV is too small');
  if (volumeClass(pv) !== claimClass(pvc)) problems.push('storageClassName does not match');
  if (modeOf(pvc.spec) !== modeOf(pv.spec)) problems.push('incompatible volumeMode');
  const have: string[] = pv.spec?.accessModes ?? [];
  if (!(pvc.spec?.accessModes ?? []).every((m: string) => have.includes(m))) problems.push('incompatible accessMode');
  return problems;
}

/** Sort volumes smallest first, equal sizes by name bytewise (the order the store query uses). */
export function bySize(a: PersistentVolume, b: PersistentVolume): number {
  const an = String(a.metadata?.name ?? '');
  const bn = String(b.metadata?.name ?? '');
  return compareQuantities(volumeStorage(a), volumeStorage(b)) || (an < bn ? -1 : an > bn ? 1 : 0);
}

/**
 * The match inside one access-mode group (steps 3-8): the first pre-bound volume that
 * passes, else the smallest that passes. `volumes` must be in bySize order.
 */
export function pickInGroup(pvc: PersistentVolumeClaim, volumes: PersistentVolume[], opts: MatchOptions = {}): Match | undefined {
  let best: PersistentVolume | undefined;
  for (const pv of volumes) {
    const v = evaluateVolume(pvc, pv, opts);
    if (v.failures.length > 0) continue;
    if (v.prebound) return { volume: pv, prebound: true };
    best ??= pv;
  }
  return best ? { volume: best, prebound: false } : undefined;
}

/** The whole algorithm over a list of volumes (in memory; the binder runs it over the store). */
export function findBestMatch(pvc: PersistentVolumeClaim, volumes: PersistentVolume[], opts: MatchOptions = {}): Match | undefined {
  const bits = (pv: PersistentVolume) => accessModesToBits(pv.spec?.accessModes ?? []);
  const groups = accessModeGroups(pvc.spec?.accessModes ?? [], volumes.map(bits));
  for (const set of groups) {
    const found = pickInGroup(pvc, volumes.filter((pv) => bits(pv) === set).sort(bySize), opts);
    if (found) return found;
  }
  return undefined;
}
