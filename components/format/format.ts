// Small pure formatting helpers for the dashboard.

import { ageOf as kubeAge } from '@/server/domain/duration';
import { humanMessage } from './quota-refusal';

/**
 * The age of a timestamp as kubectl prints it, or "" when absent. A timestamp ahead of the
 * browser's clock (a row the server just wrote, a clock running slow) reads "0s", never
 * kubectl's "<invalid>".
 */
export function ageOf(ts: string | undefined | null, now: number): string {
  if (!ts) return '';
  const at = Date.parse(ts);
  return kubeAge(ts, new Date(Number.isNaN(at) ? now : Math.max(now, at)));
}

export interface FieldCause {
  field: string;
  reason?: string;
  message: string;
}

export interface ErrorInfo {
  /** The server's message, a quota refusal in it said in human units. */
  message: string;
  /** The server's words as sent (upstream's quantities), for a tooltip. */
  exact?: string;
  /** tRPC code: BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, ... */
  code?: string;
  /** Stowage reason: Invalid, Conflict, AlreadyExists, NotFound, ... */
  reason?: string;
  causes: FieldCause[];
}

/** What the dashboard needs from any error a tRPC call threw. */
export function errorInfo(err: unknown): ErrorInfo {
  const e = err as { message?: string; data?: { code?: string; stowage?: { reason?: string; causes?: FieldCause[] } } } | null;
  const message = e?.message || 'Something went wrong';
  const human = humanMessage(message);
  return {
    message: human,
    ...(human !== message ? { exact: message } : {}),
    code: e?.data?.code,
    reason: e?.data?.stowage?.reason,
    causes: e?.data?.stowage?.causes ?? [],
  };
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Text as a sentence that ends with exactly one stop: "no expansion." and "no expansion" both read "no expansion.". */
export function sentence(text: string): string {
  const t = text.trim().replace(/\.+$/, '');
  return t === '' ? '' : /[!?]$/.test(t) ? t : `${t}.`;
}

/** A server's message ("wrong user name or password", kubectl style) as a sentence a person reads. */
export function messageSentence(text: string): string {
  const t = sentence(text);
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}
