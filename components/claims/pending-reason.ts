// Why a claim is Pending, read from what the binder keeps on it: the annotation
// stowage.io/binding-explanation (compact JSON), else the "Bindable" condition's message.
// Pure and forgiving: a garbled annotation is treated as absent, bad candidates dropped.
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { annBindingExplanation } from '@/server/domain/well-known/annotations';
import { conditionBindable } from '@/server/domain/well-known/conditions';

export const NOT_LOOKED_AT = 'The binder has not looked at this claim yet.';

export interface PendingCandidate {
  name: string;
  /** Each failed constraint as a sentence. */
  reasons: string[];
}

export interface PendingReason {
  /** Where it came from: the full explanation, only the condition, or nothing yet. */
  source: 'explanation' | 'condition' | 'none';
  summary: string;
  candidates: PendingCandidate[];
  /** ISO time of the binder's evaluation, when known. */
  evaluatedAt?: string;
  /** The condition's reason (NoMatchingVolume, WaitingForProvisioner, ...). */
  reason?: string;
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** "capacity 1Gi is less than ..." -> "Capacity 1Gi is less than ...."; "is Bound" -> "It is Bound." */
export function asSentence(fragment: string): string {
  let s = fragment.trim();
  if (!s) return s;
  if (/^(is|was|has|belongs|waits)\b/.test(s)) s = `It ${s}`;
  else s = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

function candidatesOf(v: unknown): PendingCandidate[] {
  if (!Array.isArray(v)) return [];
  const out: PendingCandidate[] = [];
  for (const c of v) {
    const name = text(c?.name);
    if (!name) continue;
    const reasons = Array.isArray(c.reasons) ? c.reasons.map(text).filter((r: string | undefined): r is string => Boolean(r)) : [];
    out.push({ name, reasons: reasons.map(asSentence) });
  }
  return out;
}

function parseAnnotation(raw: string | undefined): { summary: string; candidates: PendingCandidate[]; evaluatedAt?: string } | undefined {
  if (!raw) return undefined;
  // Parse boundary: the binder's JSON annotation, each field checked by text() and candidatesOf() below.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: the binder's JSON annotation, each field checked below
  let v: any;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const summary = text(v?.summary);
  if (!summary) return undefined;
  const at = text(v.evaluatedAt);
  return { summary, candidates: candidatesOf(v.candidates), evaluatedAt: at && !Number.isNaN(Date.parse(at)) ? at : undefined };
}

export function bindableCondition(claim: PersistentVolumeClaim): { reason?: string; message?: string; lastTransitionTime?: string } | undefined {
  const list = claim.status?.conditions;
  if (!Array.isArray(list)) return undefined;
  const c = list.find((x) => x?.type === conditionBindable && x?.status === 'False');
  return c ? { reason: text(c.reason), message: text(c.message), lastTransitionTime: text(c.lastTransitionTime) } : undefined;
}

export function pendingReasonOf(claim: PersistentVolumeClaim): PendingReason {
  const condition = bindableCondition(claim);
  const parsed = parseAnnotation(claim.metadata?.annotations?.[annBindingExplanation]);
  if (parsed) return { source: 'explanation', ...parsed, reason: condition?.reason };
  if (condition?.message) {
    return { source: 'condition', summary: condition.message, candidates: [], reason: condition.reason, evaluatedAt: condition.lastTransitionTime };
  }
  return { source: 'none', summary: NOT_LOOKED_AT, candidates: [] };
}

/** The one-line hint for a Pending claim in the claims list, or undefined when there is none. */
export function pendingHintOf(claim: PersistentVolumeClaim): string | undefined {
  if (claim.status?.phase && claim.status.phase !== 'Pending') return undefined;
  const r = pendingReasonOf(claim);
  return r.source === 'none' ? undefined : r.summary;
}

/**
 * The reason with what the claim's provisioning says now: when the newest provisioning
 * event is a failure and no volume was made, that failure is the headline (the binder's
 * "waiting for the provisioner" is true but hides what goes wrong).
 */
export function withProvisioning(why: PendingReason, latest: { reason?: string; message?: string } | undefined, provisioner: string | undefined): PendingReason {
  if (!latest || latest.reason !== 'ProvisioningFailed') return why;
  const by = provisioner ? ` by ${provisioner}` : '';
  const detail = latest.message ? `: ${latest.message.trim().replace(/\.$/, '')}` : '';
  return { ...why, summary: `Provisioning${by} is failing${detail}.`, reason: 'ProvisioningFailed' };
}
