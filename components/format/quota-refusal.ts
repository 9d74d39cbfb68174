// A quota's refusal as a person reads it. The API answers with upstream's words ("exceeded
// quota: room, requested: requests.storage=190976Mi, used: ..., limited: ...") so kubectl
// and scripts see what Kubernetes says; the dashboard says the same in human units, naming
// the quota, what was asked (a claim, a snapshot) and what is left ("quota room: this claim asks for 186.5 GiB of storage; 12 GiB
// of 50 GiB is left"), the exact quantities kept for a tooltip. Pure.
import { parseQuantity, quantityToBytes } from '@/server/domain/quantity';
import { humanBytes } from '@/server/domain/human-size';
import { SNAPSHOT_STORAGE } from '@/server/domain/quota-objects';
import { isSizeResource } from './size';
import { forbiddenText, parseForbidden } from './forbidden-text';

export interface RefusedLimit {
  resource: string;
  requested: string;
  used: string;
  limited: string;
}

export interface QuotaRefusal {
  /** Text before upstream's "exceeded quota" ('persistentvolumeclaims "x" is forbidden: '). */
  prefix: string;
  quota: string;
  limits: RefusedLimit[];
}

const REFUSAL = /^(.*?)exceeded quota: ([^,]+), requested: (\S*), used: (\S*), limited: (\S*)$/;
/** A refusal longer than this is shown as it is rather than read. */
const MAX_MESSAGE = 4000;

function pairs(list: string): Map<string, string> {
  return new Map(
    list
      .split(',')
      .filter(Boolean)
      .map((p) => [p.slice(0, p.lastIndexOf('=')), p.slice(p.lastIndexOf('=') + 1)]),
  );
}

/** Reads upstream's refusal; undefined for any other message. */
export function parseQuotaRefusal(message: string): QuotaRefusal | undefined {
  if (message.length > MAX_MESSAGE) return undefined;
  const m = REFUSAL.exec(message.trim());
  if (!m) return undefined;
  const [requested, used, limited] = [pairs(m[3]), pairs(m[4]), pairs(m[5])];
  const limits = [...limited.keys()].map((resource) => ({ resource, requested: requested.get(resource) ?? '0', used: used.get(resource) ?? '0', limited: limited.get(resource) ?? '0' }));
  if (limits.length === 0) return undefined;
  return { prefix: m[1], quota: m[2], limits };
}

const CLASS_RESOURCE = /^(.+)\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/;

function what(resource: string): string {
  const m = CLASS_RESOURCE.exec(resource);
  const base = m ? m[2] : resource;
  const noun =
    base === 'requests.storage'
      ? 'storage'
      : base === 'persistentvolumeclaims'
        ? 'claims'
        : base === SNAPSHOT_STORAGE
          ? 'snapshot storage'
          : base === 'count/volumesnapshots.snapshot.storage.k8s.io'
            ? 'snapshots'
            : base.startsWith('count/')
              ? base.slice('count/'.length).split('.')[0]
              : resource;
  return m ? `${noun} of class ${m[1]}` : noun;
}

/** What was refused, from upstream's prefix ('volumesnapshots.snapshot.storage.k8s.io "s4" is forbidden: '). */
function subjectOf(prefix: string): string {
  const resource = /^(\S+) "[^"]*" is forbidden: $/.exec(prefix)?.[1];
  if (resource === undefined || resource === 'persistentvolumeclaims') return 'this claim';
  if (resource.startsWith('volumesnapshots.')) return 'this snapshot';
  return 'this object';
}

function amount(resource: string, q: string): string {
  const parsed = parseQuantity(q);
  if (!parsed) return q;
  const n = quantityToBytes(parsed);
  return isSizeResource(resource) ? humanBytes(n) : String(n);
}

function leftOf(l: RefusedLimit): bigint | undefined {
  const [u, h] = [parseQuantity(l.used), parseQuantity(l.limited)];
  if (!u || !h) return undefined;
  const left = quantityToBytes(h) - quantityToBytes(u);
  return left < 0n ? 0n : left;
}

/** One limit in words: "this claim asks for 20 GiB of storage of class fast; 12 GiB of 50 GiB is left". */
export function refusedLimitText(l: RefusedLimit, subject = 'this claim'): string {
  const left = leftOf(l);
  const sized = isSizeResource(l.resource);
  const leftText = left === undefined ? '?' : sized ? humanBytes(left) : String(left);
  const n = amount(l.resource, l.requested);
  const noun = what(l.resource);
  const asks = sized ? `${n} of ${noun}` : `${n} more ${n === '1' ? noun.replace(/^(claim|snapshot)s/, '$1') : noun}`;
  return `${subject} asks for ${asks}; ${leftText} of ${amount(l.resource, l.limited)} is left`;
}

/** The refusal in human units, naming the quota ("Quota room: this claim asks for ..."). */
export function quotaRefusalText(r: QuotaRefusal): string {
  const subject = subjectOf(r.prefix);
  return `Quota ${r.quota}: ${r.limits.map((l) => refusedLimitText(l, subject)).join('; and ')}.`;
}

/** Any server message, with a quota refusal in it said in human units and an RBAC refusal in words; other messages as they are. */
export function humanMessage(message: string): string {
  const r = parseQuotaRefusal(message);
  if (r) return `${r.prefix}${quotaRefusalText(r)}`;
  const f = parseForbidden(message);
  return f ? forbiddenText(f) : message;
}
