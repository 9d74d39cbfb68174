// The reclaim center's actions as the page names and explains them. Pure.
import type { VolumeAction } from '@/server/domain/reclaim';
import type { ActionState, ApplyResult, PreviewRow } from '../data/api-types';

export const VOLUME_ACTION_LABELS: Record<VolumeAction, string> = {
  'make-available': 'Make Available',
  'pre-bind': 'Pre-bind to claim',
  recycle: 'Wipe and recycle',
  delete: 'Delete',
};

export const VOLUME_ACTION_HELP: Record<VolumeAction, string> = {
  'make-available': "Clears each volume's claim reference, so new claims can bind it. The data stays as it is.",
  'pre-bind': 'Reserves the volume for one Pending claim: the binder binds that claim to it and no other.',
  recycle: "Sets the reclaim policy to Delete: a local volume is wiped by its node's agent and comes back Available; other provisioned volumes are deleted by their provisioner.",
  delete: 'Deletes the volume objects. With the Retain policy the data stays on the storage.',
};

/** How many of the selected rows allow `action`, and the first refusal among the others. */
export function allowedCount<T extends { actions: Record<string, ActionState> }>(rows: T[], action: string): { allowed: number; firstRefusal?: string } {
  let allowed = 0;
  let firstRefusal: string | undefined;
  for (const r of rows) {
    const a = r.actions[action];
    if (a?.allowed) allowed++;
    else firstRefusal ??= a?.reason;
  }
  return { allowed, firstRefusal };
}

/** "namespace/name" of a claim a person typed, or an error to show. */
export function claimNameError(text: string): string | undefined {
  if (!text.trim()) return 'Name the claim as namespace/name';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(text.trim())) return 'Write namespace/name in lower case, e.g. default/data';
  return undefined;
}

/** The "Last used" cell: "last used 3 days ago" when a pod's use is known, else when the claim was created. */
export function lastUsedText(usage: { used: boolean; days: number }): string {
  const ago = usage.days === 0 ? 'today' : usage.days === 1 ? '1 day ago' : `${usage.days} days ago`;
  return usage.used ? `last used ${ago}` : `no recorded use (created ${ago})`;
}

/** The apply's result with the rows the preview refused counted as left alone (first, with why). */
export function withPreviewRefusals(r: ApplyResult, rows: PreviewRow[]): ApplyResult {
  const refused = rows.filter((x) => !x.allowed).map((x) => ({ name: x.namespace ? `${x.namespace}/${x.name}` : x.name, reason: x.reason ?? 'not allowed' }));
  return { done: r.done, skipped: [...refused, ...r.skipped] };
}

/** Why a volume refuses some actions, one line per action ("Delete: ..."), or one line when it refuses them all. */
export function refusalLines(actions: Record<VolumeAction, ActionState>, order: readonly VolumeAction[]): string[] {
  const refused = order.filter((a) => !actions[a]?.allowed);
  if (refused.length === 0) return [];
  if (refused.length === order.length) {
    const reasons = [...new Set(refused.map((a) => actions[a]?.reason ?? ''))];
    if (reasons.length === 1) return [`No action: ${reasons[0]}`];
  }
  return refused.map((a) => `${VOLUME_ACTION_LABELS[a]}: ${actions[a]?.reason ?? ''}`);
}

/**
 * The refusals every row shares (said once above the table, not on each row), and each
 * row's own. With one row nothing is shared.
 */
export function splitRefusals(rows: string[][]): { shared: string[]; own: string[][] } {
  if (rows.length < 2) return { shared: [], own: rows };
  const shared = rows[0].filter((line) => rows.every((r) => r.includes(line)));
  return { shared, own: rows.map((r) => r.filter((line) => !shared.includes(line))) };
}
