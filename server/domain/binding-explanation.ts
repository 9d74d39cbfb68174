// "Why is my claim Pending?": the binder's latest decision about a claim it could not
// bind, in plain sentences. What the binder keeps on the claim (annotation
// stowage.io/binding-explanation, compact JSON; and a "Bindable" condition): a summary of
// the situation, and for each of the nearest candidate volumes every rule it fails.
// Pure: no I/O.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { compareQuantities, type Quantity } from './quantity';
import { claimClass, evaluateVolume, requestedStorage, volumeStorage, type MatchOptions, type Rule } from './matching';

export type Situation =
  /** Nothing matches and the claim asks for no class ("" or none, with provisioning off). */
  | { kind: 'noMatch' }
  /** Nothing matches, the claim names no class, and there is no default StorageClass. */
  | { kind: 'noDefaultClass' }
  | { kind: 'classNotFound'; className: string }
  | { kind: 'waitingForProvisioner'; className: string; provisioner: string }
  /** The class's provisioner is kubernetes.io/no-provisioner or an unknown in-tree name. */
  | { kind: 'cannotProvision'; className: string; provisioner: string }
  | { kind: 'waitForFirstConsumer'; className: string }
  | { kind: 'volumeNotFound'; volumeName: string }
  | { kind: 'volumeBoundElsewhere'; volumeName: string; claim: string }
  | { kind: 'volumeMismatch'; volumeName: string; problems: string[] };

export interface CandidateExplanation {
  name: string;
  reasons: string[];
}

export interface Explanation {
  evaluatedAt: string;
  summary: string;
  candidates: CandidateExplanation[];
}

/** The condition reason for each situation (CamelCase, as Kubernetes condition reasons). */
export const conditionReasons: Record<Situation['kind'], string> = {
  noMatch: 'NoMatchingVolume',
  noDefaultClass: 'NoStorageClass',
  classNotFound: 'StorageClassNotFound',
  waitingForProvisioner: 'WaitingForProvisioner',
  cannotProvision: 'CannotProvision',
  waitForFirstConsumer: 'WaitForFirstConsumer',
  volumeNotFound: 'VolumeNotFound',
  volumeBoundElsewhere: 'VolumeBoundToOtherClaim',
  volumeMismatch: 'VolumeMismatch',
};

const NO_MATCH = 'No available volume matches this claim';

export function summaryOf(s: Situation): string {
  switch (s.kind) {
    case 'noMatch':
      return `${NO_MATCH}, and it asks for no storage class, so none will be provisioned.`;
    case 'noDefaultClass':
      return `${NO_MATCH}, and no storage class applies: the claim names none and there is no default StorageClass.`;
    case 'classNotFound':
      return `${NO_MATCH}, and its StorageClass "${s.className}" does not exist.`;
    case 'waitingForProvisioner':
      return `${NO_MATCH}; waiting for provisioner "${s.provisioner}" (StorageClass "${s.className}") to create one, or for an administrator to create a matching volume.`;
    case 'cannotProvision':
      return `${NO_MATCH}, and StorageClass "${s.className}" cannot provision one (provisioner "${s.provisioner}"): an administrator must create a matching volume.`;
    case 'waitForFirstConsumer':
      return `Waiting for a pod: StorageClass "${s.className}" binds on first use (WaitForFirstConsumer), so the claim binds once a pod that uses it is scheduled to a node.`;
    case 'volumeNotFound':
      return `The claim asks for volume "${s.volumeName}" (spec.volumeName), which does not exist.`;
    case 'volumeBoundElsewhere':
      return `The claim asks for volume "${s.volumeName}", which is bound to another claim (${s.claim}).`;
    case 'volumeMismatch':
      return `The claim asks for volume "${s.volumeName}", which cannot serve it: ${s.problems.join('; ')}.`;
  }
}

function distance(a: Quantity, b: Quantity): bigint {
  const scale = Math.max(a.scale, b.scale);
  const x = a.num * 10n ** BigInt(scale - a.scale);
  const y = b.num * 10n ** BigInt(scale - b.scale);
  return x > y ? x - y : y - x;
}

/**
 * The nearest `limit` volumes that fail, fewest failed rules first, then closest in size;
 * the one closest in size across all shapes is always among them.
 */
export function nearestCandidates(
  claim: PersistentVolumeClaim,
  volumes: PersistentVolume[],
  opts: MatchOptions = {},
  limit = 5,
): CandidateExplanation[] {
  const want = requestedStorage(claim);
  const seen = new Set<string>();
  const rated = [];
  for (const pv of volumes) {
    const name = pv.metadata?.name ?? '';
    if (seen.has(name)) continue;
    seen.add(name);
    const { failures } = evaluateVolume(claim, pv, opts);
    if (failures.length === 0) continue;
    rated.push({ name, failures, gap: distance(volumeStorage(pv), want), fits: compareQuantities(volumeStorage(pv), want) >= 0 });
  }
  rated.sort(
    (a, b) =>
      a.failures.length - b.failures.length ||
      Number(b.fits) - Number(a.fits) ||
      (a.gap < b.gap ? -1 : a.gap > b.gap ? 1 : 0) ||
      (a.name < b.name ? -1 : 1),
  );
  const top = rated.slice(0, limit);
  // The closest in size always makes the list, whatever its shape: a 100Gi RWX volume says
  // more to a 500Gi RWO claim than a fifth 1Gi RWO one.
  const closest = rated.reduce<(typeof rated)[number] | undefined>((best, r) => (!best || r.gap < best.gap ? r : best), undefined);
  if (closest && !top.includes(closest) && top.length > 0) top[top.length - 1] = closest;
  return top.map((r) => ({ name: r.name, reasons: r.failures.map((f) => f.message) }));
}

export function explain(
  claim: PersistentVolumeClaim,
  situation: Situation,
  volumes: PersistentVolume[],
  now: Date,
  opts: MatchOptions = {},
): { reason: string; explanation: Explanation } {
  const candidates = nearestCandidates(claim, volumes, opts);
  let summary = summaryOf(situation);
  const searched = situation.kind !== 'volumeNotFound' && situation.kind !== 'volumeBoundElsewhere' && situation.kind !== 'volumeMismatch';
  if (searched && candidates.length === 0) summary += ' No volume comes near it.';
  return {
    reason: conditionReasons[situation.kind],
    explanation: { evaluatedAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), summary, candidates },
  };
}

/**
 * Equal apart from when it was evaluated, and apart from which of several equally near
 * volumes each candidate is: then it is not written again. The nearest volumes are read
 * with a bounded look and no order among equals (volume-queries.ts, nearVolumes), so a
 * resync may name another volume with the same reasons; writing that (and its Event) each
 * time rewrote thousands of waiting claims at start-up with 100,000 volumes.
 */
export function sameExplanation(a: Explanation | undefined, b: Explanation | undefined): boolean {
  if (!a || !b) return a === b;
  const reasons = (e: Explanation) => JSON.stringify(e.candidates.map((c) => c.reasons));
  return a.summary === b.summary && reasons(a) === reasons(b);
}

export function serializeExplanation(e: Explanation): string {
  return JSON.stringify({ evaluatedAt: e.evaluatedAt, summary: e.summary, candidates: e.candidates });
}

/** Reads the annotation back; undefined when absent or not ours. */
export function parseExplanation(text: string | undefined): Explanation | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text);
    if (typeof v?.summary === 'string' && typeof v?.evaluatedAt === 'string' && Array.isArray(v?.candidates)) return v as Explanation;
  } catch {
    // not JSON: treat as absent
  }
  return undefined;
}

/** Rules about where and when a volume binds, not whether it could: a claim waiting for its consumer fails them all. */
const PLACEMENT_RULES: ReadonlySet<Rule> = new Set(['nodeAffinity', 'delayBinding']);

/**
 * When the only volumes that would serve a claim differ from it in volume mode (a Filesystem
 * claim of a class whose volumes are all Block, as local block devices are): the message of
 * a FailedBinding event that says so, as upstream's binder says "no persistent volumes
 * available for this claim" with the reason it has, and what to change. Undefined when a
 * volume of the claim's mode would do, or none would even in another mode.
 */
export function volumeModeMismatchMessage(claim: PersistentVolumeClaim, volumes: PersistentVolume[], opts: MatchOptions = {}): string | undefined {
  const want = claim.spec?.volumeMode ?? 'Filesystem';
  const otherMode: string[] = [];
  for (const pv of volumes) {
    const rules = evaluateVolume(claim, pv, opts).failures.map((f) => f.rule).filter((r) => !PLACEMENT_RULES.has(r));
    if (rules.length === 0) return undefined; // one of the claim's own mode would do
    if (rules.length === 1 && rules[0] === 'volumeMode') otherMode.push(pv.metadata?.name ?? '');
  }
  if (otherMode.length === 0) return undefined;
  const have = want === 'Block' ? 'Filesystem' : 'Block';
  const names = [...new Set(otherMode)].sort();
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  const cls = claimClass(claim);
  return (
    `no persistent volumes available for this claim with volumeMode ${want}: ` +
    `the volumes${cls ? ` of StorageClass "${cls}"` : ''} that would serve it are ${have} (${shown}); ` +
    `a claim for them sets spec.volumeMode: ${have}`
  );
}
